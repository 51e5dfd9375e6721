/**
 * The owner of coding sessions' tables: each session's coding side (`coding_sessions`), its steps
 * (`coding_steps`) and benchmark runs (`benchmark_runs`); and the status changes of a coding
 * session's row in `sessions`. The task catalogue is coding-task.repository.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AgentMode } from '../../../domain/agent-state';
import { codingPrompt } from '../../../domain/sandbox/prompt';
import { stepAsShown } from '../../../domain/sandbox/transcript';
import { CODING_CATEGORY, type SessionStatus } from '../../../domain/sessions';
import { Agent } from '../entities/agent.entity';
import type { CodingStepKind } from '../entities/coding-step.entity';
import { Prompt } from '../entities/prompt.entity';
import { newSessionNonce } from '../../../domain/credentials';
import { addDelivery } from './session.repository';
import { onlyRow, run } from './sql';

export interface NewCodingSession {
  sessionId: number;
  taskId: string;
  tokenNonce: string;
  maxSteps: number;
  expiresAt: Date;
  benchmarkRunId: number | null;
}

/** Advisory-lock keys: one account's coding admissions, and its steps with its workers', are decided one at a time. */
const ADMISSION_LOCK = 26_001;
const STEP_LOCK = 26_002;

/** A coding session to open for an agent: its task, deadline and step cap, and where it comes from. */
export interface CodingSessionToOpen {
  agent: { id: number; ownerId: number; mode: AgentMode };
  task: { id: string; title: string; statement: string };
  deadlineSeconds: number;
  maxSteps: number;
  benchmarkRunId?: number;
  /** An operator's redelivery: the same prompt again, linked to the original. */
  redelivery?: { promptId: number; rootId: number };
  /** Coding sessions the agent's account may have live at once; past it none is opened. Unset: no cap (an operator's redelivery). */
  sessionsPerAccount?: number;
}

/**
 * Writes a new coding session (its prompt, its delivery and its coding side), pending, in one
 * transaction; undefined, having written nothing, when the account already has as many live coding
 * sessions as it may (decided under a lock per account, so two starts at once cannot both pass).
 */
export async function openCodingSessionRows(em: EntityManager, open: CodingSessionToOpen): Promise<number | undefined> {
  return em.transactional(async (tx) => {
    if (open.sessionsPerAccount !== undefined) {
      await run(tx, `select pg_advisory_xact_lock(?, ?)`, [ADMISSION_LOCK, open.agent.ownerId]);
      const [live] = await run<{ n: number }>(
        tx,
        `select count(*)::int as n from sessions s join agents a on a.id = s.agent_id
         where a.owner_id = ? and s.kind = 'sandbox' and s.category = ? and s.status in ('pending', 'running')`,
        [open.agent.ownerId, CODING_CATEGORY],
      );
      if ((live?.n ?? 0) >= open.sessionsPerAccount) return undefined;
    }
    const prompt = open.redelivery
      ? tx.getReference(Prompt, open.redelivery.promptId)
      : tx.create(Prompt, {
          source: 'sandbox',
          category: CODING_CATEGORY,
          text: codingPrompt(open.task.title, open.task.statement, open.maxSteps),
        });
    const session = addDelivery(tx, {
      agent: tx.getReference(Agent, open.agent.id),
      kind: 'sandbox',
      prompt,
      mode: open.agent.mode,
      category: CODING_CATEGORY,
      deadlineSeconds: open.deadlineSeconds,
      ...(open.redelivery ? { redeliveryOf: open.redelivery.rootId } : {}),
    });
    await tx.flush();
    await addCodingSession(tx, {
      sessionId: session.id,
      taskId: open.task.id,
      // The token itself is made where the key is: the worker, once the workspace is ready.
      tokenNonce: newSessionNonce(),
      maxSteps: open.maxSteps,
      expiresAt: new Date(session.createdAt.getTime() + open.deadlineSeconds * 1000),
      benchmarkRunId: open.benchmarkRunId ?? null,
    });
    return session.id;
  });
}

/** A coding session whose workflow could not be started: closed as the arena's own failure, so it never counts against the agent. */
export async function closeUnstartedCodingSession(em: EntityManager, sessionId: number, error: string): Promise<void> {
  await run(
    em,
    `with s as (update sessions set status = 'error', error = ?, latency_ms = 0, completed_at = now()
                where id = ? and status = 'pending' returning id)
     update coding_sessions c set arena_fault = true, ended_at = now() from s where c.session_id = s.id`,
    [error, sessionId],
  );
}

export async function addCodingSession(em: EntityManager, s: NewCodingSession): Promise<void> {
  await run(
    em,
    `insert into coding_sessions (session_id, task_id, token_nonce, max_steps, expires_at, benchmark_run_id)
     values (?, ?, ?, ?, ?, ?)`,
    [s.sessionId, s.taskId, s.tokenNonce, s.maxSteps, s.expiresAt, s.benchmarkRunId],
  );
}

/** What a step, a delivery payload or the feed needs of a coding session. */
export interface CodingSessionRow {
  session_id: number;
  agent_id: number;
  owner_id: number;
  status: SessionStatus;
  mode: string;
  task_id: string;
  token_nonce: string;
  max_steps: number;
  steps: number;
  tests_passed: number | null;
  tests_total: number | null;
  /** A Date, or its text as the driver hands some columns back. */
  expires_at: Date | string;
  worker_queue: string | null;
}

const CODING_SELECT = `select c.session_id, s.agent_id, a.owner_id, s.status, s.mode, c.task_id, c.token_nonce, c.max_steps,
    c.steps, c.tests_passed, c.tests_total, c.expires_at, c.worker_queue
  from coding_sessions c join sessions s on s.id = c.session_id join agents a on a.id = s.agent_id`;

export async function findCodingSession(em: EntityManager, sessionId: number): Promise<CodingSessionRow | undefined> {
  const [row] = await run<CodingSessionRow>(em, `${CODING_SELECT} where c.session_id = ?`, [sessionId]);
  return row;
}

export async function codingSessionByTokenHash(
  em: EntityManager,
  tokenHash: string,
): Promise<CodingSessionRow | undefined> {
  const [row] = await run<CodingSessionRow>(em, `${CODING_SELECT} where c.token_hash = ?`, [tokenHash]);
  return row;
}

/** The workspace is ready on the worker with this task queue, and the session's token (its hash) takes steps from now on. */
export async function markWorkspaceReady(
  em: EntityManager,
  sessionId: number,
  ready: { queue: string; tokenHash: string },
): Promise<void> {
  await run(em, `update coding_sessions set worker_queue = ?, token_hash = ? where session_id = ?`, [
    ready.queue,
    ready.tokenHash,
    sessionId,
  ]);
}

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
    [sessionId, kind, JSON.stringify(request)],
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
  },
  caps: { stepsPerAccount: number; stepsPerWorker: number },
): Promise<StepAdmission> {
  return em.transactional(async (tx) => {
    // Both locks in one statement, account first; the count and the insert are the next one, so the
    // count sees every step a transaction that held the locks before wrote.
    await run(tx, `select pg_advisory_xact_lock(?, ?), pg_advisory_xact_lock(?, hashtext(coalesce(?, '')))`, [
      STEP_LOCK,
      step.ownerId,
      STEP_LOCK + 1,
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
         insert into coding_steps (session_id, kind, request, result, duration_ms, created_at)
         select ?, ?, ?::jsonb, 'null'::jsonb, 0, now() from in_flight where account < ? and worker < ?
         returning id)
       select in_flight.account, in_flight.worker, added.id from in_flight left join added on true`,
      [
        step.ownerId,
        step.workerQueue,
        step.sessionId,
        step.kind,
        JSON.stringify(step.request),
        caps.stepsPerAccount,
        caps.stepsPerWorker,
      ],
    );
    if (row?.id != null) return { stepId: row.id };
    return { full: (row?.account ?? 0) >= caps.stepsPerAccount ? ('account' as const) : ('worker' as const) };
  });
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
      [step.n, JSON.stringify(step.result), step.durationMs, step.stepId],
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

/** The agent's answer to the delivery itself (its summary), once it gave one. */
export async function codingSummaryOf(em: EntityManager, sessionId: number): Promise<string | null> {
  const [row] = await run<{ summary: string | null }>(em, `select summary from coding_sessions where session_id = ?`, [
    sessionId,
  ]);
  return row?.summary ?? null;
}

/**
 * What the agent answered to the delivery itself; the first answer stays. A runner answers when its
 * command ends, usually after submit: then the ended session's feed entry gets it in front.
 */
export async function recordCodingSummary(em: EntityManager, sessionId: number, summary: string): Promise<void> {
  await run(
    em,
    `with kept as (update coding_sessions set summary = ? where session_id = ? and summary is null returning session_id)
     update sessions s set response = ? || E'\n\n' || s.response
     from kept where s.id = kept.session_id and s.response is not null and s.status not in ('pending', 'running')`,
    [summary, sessionId, summary.trim()],
  );
}

export interface CodingOutcome {
  status: SessionStatus;
  error?: string;
  /** An `error` that is the arena's own failure: shown, not counted against the agent. */
  notAgentsFault?: boolean;
  testsPassed?: number;
  testsTotal?: number;
  /** Why its run of the hidden tests was found tampered with. */
  tampered?: string;
  /** The feed's account of the session: the summary and the transcript. */
  response: string;
}

/**
 * Ends a coding session once (`pending` or `running` only): its status and score, the work item
 * settled, the benchmark run finished when this was its last session. Answers the status recorded,
 * now or before, and whether this call wrote it.
 */
export async function endCodingSession(
  em: EntityManager,
  sessionId: number,
  o: CodingOutcome,
): Promise<{ status: SessionStatus; wrote: boolean }> {
  return em.transactional(async (tx) => {
    const ended = await run<{ status: SessionStatus; benchmark_run_id: number | null }>(
      tx,
      `with s as (
         update sessions set status = ?, error = ?, response = ?, completed_at = now(),
           latency_ms = case when sent_at is null then null else (extract(epoch from now() - sent_at) * 1000)::int end
         where id = ? and status in ('pending', 'running') returning id, status)
       update coding_sessions c set tests_passed = ?, tests_total = ?, tampered = ?, arena_fault = ?, ended_at = now()
       from s where c.session_id = s.id returning s.status, c.benchmark_run_id`,
      [
        o.status,
        // The feed's error of a run found tampered with is the reason it scored 0.
        o.error ?? (o.tampered ? `tampered with: ${o.tampered}` : null),
        o.response,
        sessionId,
        o.testsPassed ?? null,
        o.testsTotal ?? null,
        o.tampered ?? null,
        o.status === 'error' && o.notAgentsFault === true,
      ],
    );
    const row = ended[0];
    if (!row) {
      const [now] = await run<{ status: SessionStatus }>(tx, `select status from sessions where id = ?`, [sessionId]);
      return { status: now?.status ?? o.status, wrote: false };
    }
    await run(
      tx,
      `update work_items set state = case when state = 'leased' then 'completed' else 'expired' end
       where session_id = ? and state in ('queued', 'leased')`,
      [sessionId],
    );
    if (row.benchmark_run_id !== null) {
      // The run ends with its last session: as many ended as it plans (its workflow closes it too,
      // should it stop short of that).
      await run(
        tx,
        `update benchmark_runs b set finished_at = now() where b.id = ? and b.finished_at is null
           and (select count(*) from coding_sessions c join sessions s on s.id = c.session_id
                where c.benchmark_run_id = b.id and s.status not in ('pending', 'running')) >= b.tasks * b.trials`,
        [row.benchmark_run_id],
      );
    }
    return { status: row.status, wrote: true };
  });
}

/** Starts a benchmark run of `tasks` tasks, `trials` times each; undefined when the agent already has one running. */
export async function startBenchmarkRun(
  em: EntityManager,
  agentId: number,
  suite: string,
  tasks: number,
  trials: number,
): Promise<number | undefined> {
  const rows = await run<{ id: number }>(
    em,
    `insert into benchmark_runs (agent_id, suite, tasks, trials, created_at) values (?, ?, ?, ?, now())
     on conflict do nothing returning id`,
    [agentId, suite, tasks, trials],
  );
  return rows[0]?.id;
}

/** Closes a benchmark run, whatever it has left: its workflow has ended, or could not start. */
export async function finishBenchmarkRun(em: EntityManager, runId: number): Promise<void> {
  await run(em, `update benchmark_runs set finished_at = now() where id = ? and finished_at is null`, [runId]);
}

export interface BenchmarkProgress {
  id: number;
  /** Sessions the run plans: its tasks times its trials. */
  tasks: number;
  ended: number;
  passed: number;
  created_at: Date;
  finished_at: Date | null;
}

/** An agent's latest benchmark run and how far it got. */
export async function latestBenchmarkRun(em: EntityManager, agentId: number): Promise<BenchmarkProgress | undefined> {
  const [row] = await run<BenchmarkProgress>(
    em,
    `select b.id, b.tasks * b.trials as tasks, b.created_at, b.finished_at,
       count(*) filter (where s.status not in ('pending', 'running'))::int as ended,
       count(*) filter (where s.status = 'passed')::int as passed
     from benchmark_runs b left join coding_sessions c on c.benchmark_run_id = b.id left join sessions s on s.id = c.session_id
     where b.agent_id = ? group by b.id order by b.id desc limit 1`,
    [agentId],
  );
  return row;
}

/** Of these sessions, the ones that ended (or no longer exist): their workspaces may go. */
export async function endedDeliveriesAmong(em: EntityManager, sessionIds: readonly number[]): Promise<number[]> {
  const rows = await run<{ id: number }>(
    em,
    // The ids as one JSON array: a list binding would be spread into separate placeholders.
    `select i.id from jsonb_array_elements_text(?::jsonb) as x(raw) cross join lateral (select x.raw::int as id) i
       left join sessions s on s.id = i.id
     where s.id is null or s.status not in ('pending', 'running')`,
    [JSON.stringify(sessionIds)],
  );
  return rows.map((r) => r.id);
}

/** Leases past this long after their session ended are taken back when a uid is wanted (a worker lost mid-session left them). */
const STALE_LEASE = '10 minutes';
/** Tries at finding a free uid (a try loses only to another lease made at the same moment, or to a full range). */
const LEASE_TRIES = 20;

/**
 * The uid of the sandbox's range that `sessionId` holds while it lives: the one it leased already (a
 * retried preparation), else the first free one from `sessionId`'s place in the range on; undefined
 * when every one is held. The range's last uid is the isolation check's and never leased.
 */
export async function leaseSandboxUid(
  em: EntityManager,
  sessionId: number,
  range: { uidBase: number; uidCount: number },
): Promise<number | undefined> {
  const leasable = range.uidCount - 1;
  await run(
    em,
    `delete from sandbox_uid_leases l using sessions s
     where s.id = l.session_id and s.status not in ('pending', 'running') and s.completed_at < now() - interval '${STALE_LEASE}'`,
  );
  for (let i = 0; i < LEASE_TRIES; i++) {
    const [held] = await run<{ uid: number }>(em, `select uid from sandbox_uid_leases where session_id = ?`, [
      sessionId,
    ]);
    if (held) return held.uid;
    const rows = await run<{ uid: number }>(
      em,
      `insert into sandbox_uid_leases (uid, session_id, leased_at)
       select c.uid, ?, now() from generate_series(0, ? - 1) n cross join lateral (select ?::int + ((?::int + n) % ?::int) as uid) c
       where not exists (select 1 from sandbox_uid_leases l where l.uid = c.uid)
       order by n limit 1
       on conflict do nothing returning uid`,
      [sessionId, leasable, range.uidBase, sessionId, leasable],
    );
    const [leased] = rows;
    if (leased) return leased.uid;
    // Nothing inserted: every uid is held, or another lease took the one found; look again.
  }
  return undefined;
}

/** The session's uid goes back to the range: its workspace is gone and nothing of it runs. */
export async function releaseSandboxUid(em: EntityManager, sessionId: number): Promise<void> {
  await run(em, `delete from sandbox_uid_leases where session_id = ?`, [sessionId]);
}

export interface TamperedSession {
  session_id: number;
  agent_id: number;
  agent_name: string;
  task_id: string;
  ended_at: Date | string;
  tampered: string;
}

/** Sessions whose run of the hidden tests was found tampered with, newest first (`since`: ended after it). */
export function tamperedSessions(
  em: EntityManager,
  filter: { since?: Date; agentId?: number; limit: number },
): Promise<TamperedSession[]> {
  return run<TamperedSession>(
    em,
    `select c.session_id, s.agent_id, a.name as agent_name, c.task_id, c.ended_at, c.tampered
     from coding_sessions c join sessions s on s.id = c.session_id join agents a on a.id = s.agent_id
     where c.tampered is not null and (?::timestamptz is null or c.ended_at >= ?) and (?::int is null or s.agent_id = ?)
     order by c.ended_at desc limit ?`,
    [filter.since ?? null, filter.since ?? null, filter.agentId ?? null, filter.agentId ?? null, filter.limit],
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
