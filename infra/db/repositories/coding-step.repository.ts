/**
 * The owner of coding sessions' steps (`coding_steps`): a step written before it runs, admitted
 * within the account's and the worker's caps, its result (which the session counts), the
 * transcript, and the steps' retention.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { stepAsShown } from '../../../domain/sandbox/transcript';
import type { CodingStepKind } from '../entities/coding-step.entity';
import { CODING_LOCKS } from './coding.repository';
import { storableJson } from '../../../domain/stored-text';
import { onlyRow, run } from './sql';

/** A step waiting to run: its request, written before the workflow is asked, so no file or output goes through the history. */
export async function addCodingStep(
  em: EntityManager,
  sessionId: number,
  kind: CodingStepKind,
  request: Record<string, unknown>,
): Promise<number> {
  const rows = await run<{ id: number }>(
    em,
    `insert into coding_steps (session_id, kind, request, result, duration_ms, created_at)
     values (?, ?, ?::jsonb, 'null'::jsonb, 0, now()) returning id`,
    [sessionId, kind, JSON.stringify(storableJson(request))],
  );
  return onlyRow(rows, 'new coding step').id;
}

/** A step in flight longer than this is left over (its API process died before asking the workflow): no cap counts it. */
const STEP_IN_FLIGHT_AT_MOST = '3 minutes';

export type StepAdmission = { stepId: number } | { full: 'account' | 'worker' };

/**
 * Writes a step waiting to run, like `addCodingStep`, unless the account already has
 * `stepsPerAccount` steps in flight (written, not yet run), or the session's worker `stepsPerWorker`.
 * Decided under a lock per account, then per worker, so steps arriving at once cannot all pass.
 */
export async function admitCodingStep(
  em: EntityManager,
  step: {
    sessionId: number;
    ownerId: number;
    workerQueue: string | null;
    kind: CodingStepKind;
    request: Record<string, unknown>;
    /** The client's name for the call (an MCP request id), for its cancellation to find the step. */
    clientRef?: string | null;
  },
  caps: { stepsPerAccount: number; stepsPerWorker: number },
): Promise<StepAdmission> {
  return em.transactional(async (tx) => {
    // Both locks in one statement, account first; the count and the insert are the next one, so the
    // count sees every step a transaction that held the locks before wrote.
    await run(tx, `select pg_advisory_xact_lock(?, ?), pg_advisory_xact_lock(?, hashtext(coalesce(?, '')))`, [
      CODING_LOCKS.accountSteps,
      step.ownerId,
      CODING_LOCKS.workerSteps,
      step.workerQueue,
    ]);
    const [row] = await run<{ account: number; worker: number; id: number | null }>(
      tx,
      `with in_flight as (
         select count(*) filter (where a.owner_id = ?)::int as account, count(*) filter (where c.worker_queue = ?)::int as worker
         from coding_steps st join coding_sessions c on c.session_id = st.session_id
           join sessions s on s.id = st.session_id join agents a on a.id = s.agent_id
         where st.n is null and st.created_at > now() - interval '${STEP_IN_FLIGHT_AT_MOST}'),
       added as (
         insert into coding_steps (session_id, kind, request, result, duration_ms, created_at, client_ref)
         select ?, ?, ?::jsonb, 'null'::jsonb, 0, now(), ? from in_flight where account < ? and worker < ?
         returning id)
       select in_flight.account, in_flight.worker, added.id from in_flight left join added on true`,
      [
        step.ownerId,
        step.workerQueue,
        step.sessionId,
        step.kind,
        JSON.stringify(storableJson(step.request)),
        step.clientRef ?? null,
        caps.stepsPerAccount,
        caps.stepsPerWorker,
      ],
    );
    if (row?.id != null) return { stepId: row.id };
    return { full: (row?.account ?? 0) >= caps.stepsPerAccount ? ('account' as const) : ('worker' as const) };
  });
}

/** Marks a step begun by its worker (the first time: a retried activity keeps the first start). */
export async function markCodingStepStarted(em: EntityManager, stepId: number): Promise<void> {
  await run(em, `update coding_steps set started_at = now() where id = ? and started_at is null`, [stepId]);
}

/** When a step's worker began it (null while it waits), or undefined for no such step. */
export async function codingStepStart(
  em: EntityManager,
  stepId: number,
): Promise<{ startedAt: Date | null } | undefined> {
  const [row] = await run<{ started_at: Date | string | null }>(
    em,
    `select started_at from coding_steps where id = ?`,
    [stepId],
  );
  return row && { startedAt: row.started_at === null ? null : new Date(row.started_at) };
}

/** The unfinished step of a session that the client's call `clientRef` asked for, if any. */
export async function codingStepOfClientCall(
  em: EntityManager,
  sessionId: number,
  clientRef: string,
): Promise<number | undefined> {
  const [row] = await run<{ id: number }>(
    em,
    `select id from coding_steps where session_id = ? and client_ref = ? and n is null order by id desc limit 1`,
    [sessionId, clientRef],
  );
  return row?.id;
}

/** A step the workflow refused never ran: it leaves no trace in the transcript. */
export async function dropCodingStep(em: EntityManager, stepId: number): Promise<void> {
  await run(em, `delete from coding_steps where id = ? and n is null`, [stepId]);
}

export interface CodingStepRow {
  id: number;
  session_id: number;
  n: number | null;
  kind: CodingStepKind;
  request: Record<string, unknown>;
  result: Record<string, unknown> | null;
  duration_ms: number;
}

export async function findCodingStep(em: EntityManager, stepId: number): Promise<CodingStepRow | undefined> {
  const [row] = await run<CodingStepRow>(
    em,
    `select id, session_id, n, kind, request, result, duration_ms from coding_steps where id = ?`,
    [stepId],
  );
  return row;
}

/**
 * A step's result, numbered; the session counts it and, at its first step, is `running`. A step
 * recorded already (a retried activity) keeps its first result.
 */
export async function recordCodingStep(
  em: EntityManager,
  step: { stepId: number; sessionId: number; n: number; result: Record<string, unknown>; durationMs: number },
): Promise<void> {
  await em.transactional(async (tx) => {
    const rows = await run(
      tx,
      `update coding_steps set n = ?, result = ?::jsonb, duration_ms = ? where id = ? and n is null returning id`,
      [step.n, JSON.stringify(storableJson(step.result)), step.durationMs, step.stepId],
    );
    if (rows.length === 0) return;
    await run(tx, `update coding_sessions set steps = steps + 1 where session_id = ?`, [step.sessionId]);
    await run(tx, `update sessions set status = 'running' where id = ? and status = 'pending'`, [step.sessionId]);
  });
}

/** The transcript: every step that ran, in order. */
export function codingStepsOf(em: EntityManager, sessionId: number): Promise<CodingStepRow[]> {
  return run<CodingStepRow>(
    em,
    `select id, session_id, n, kind, request, result, duration_ms from coding_steps
     where session_id = ? and n is not null order by n`,
    [sessionId],
  );
}

/**
 * The retention of coding steps: the steps of sessions that ended more than `days` ago keep only what
 * the transcript shows (each row once, `batch` at a time); a step that never ran (its API process died
 * before asking the workflow) goes. Answers how many rows it changed; fewer than `batch` means done.
 */
export async function trimCodingSteps(em: EntityManager, days: number, batch: number): Promise<number> {
  return em.transactional(async (tx) => {
    const rows = await run<{
      id: number;
      n: number | null;
      kind: string;
      request: Record<string, unknown>;
      result: Record<string, unknown> | null;
    }>(
      tx,
      `select st.id, st.n, st.kind, st.request, st.result from coding_steps st join coding_sessions c on c.session_id = st.session_id
       where c.ended_at < now() - make_interval(days => ?) and st.trimmed_at is null
       order by st.id limit ? for update of st skip locked`,
      [days, batch],
    );
    const neverRan = rows.filter((row) => row.n === null).map((row) => row.id);
    if (neverRan.length > 0) {
      // The ids as one JSON array: a list binding would be spread into separate placeholders.
      await run(tx, `delete from coding_steps where id in (select jsonb_array_elements_text(?::jsonb)::int)`, [
        JSON.stringify(neverRan),
      ]);
    }
    const shown = rows
      .filter((row) => row.n !== null)
      .map((row) => ({ id: row.id, ...stepAsShown(row.kind, row.request, row.result) }));
    if (shown.length > 0) {
      await run(
        tx,
        `update coding_steps st set request = x.request, result = x.result, trimmed_at = now()
         from jsonb_to_recordset(?::jsonb) as x(id int, request jsonb, result jsonb) where st.id = x.id`,
        [JSON.stringify(shown)],
      );
    }
    return rows.length;
  });
}
