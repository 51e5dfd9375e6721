/**
 * The owner of coding sessions' tables: each session's coding side (`coding_sessions`) and the
 * status changes of a coding session's row in `sessions`. Its steps are coding-step.repository.ts,
 * benchmark runs benchmark-run.repository.ts, the sandbox's uid leases sandbox-uid.repository.ts
 * and the task catalogue coding-task.repository.ts.
 */
import { storableText } from '../../../domain/stored-text';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AgentMode } from '../../../domain/agent-state';
import { codingPrompt } from '../../../domain/sandbox/prompt';
import { CODING_CATEGORY, type DeliveryStatus, type WrittenDelivery } from '../../../domain/deliveries';
import { Agent } from '../entities/agent.entity';
import { Prompt } from '../entities/prompt.entity';
import { newCodingSessionNonce } from '../../../domain/credentials';
import { addDelivery, writtenDelivery } from './delivery.repository';
import { run } from './sql';

export interface NewCodingSession {
  sessionId: number;
  taskId: string;
  tokenNonce: string;
  maxSteps: number;
  expiresAt: Date;
  benchmarkRunId: number | null;
}

/**
 * Advisory-lock keys: one account's coding admissions, and its steps with its workers'
 * (coding-step.repository.ts), are decided one at a time. Each key pairs with an account or a
 * worker, so the three must stay apart.
 */
export const CODING_LOCKS = { admission: 26_001, accountSteps: 26_002, workerSteps: 26_003 } as const;

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
export async function openCodingSessionRows(
  em: EntityManager,
  open: CodingSessionToOpen,
): Promise<WrittenDelivery | undefined> {
  return em.transactional(async (tx) => {
    if (open.sessionsPerAccount !== undefined) {
      await run(tx, `select pg_advisory_xact_lock(?, ?)`, [CODING_LOCKS.admission, open.agent.ownerId]);
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
      tokenNonce: newCodingSessionNonce(),
      maxSteps: open.maxSteps,
      expiresAt: new Date(session.createdAt.getTime() + open.deadlineSeconds * 1000),
      benchmarkRunId: open.benchmarkRunId ?? null,
    });
    return writtenDelivery(session);
  });
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
  status: DeliveryStatus;
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
    [storableText(summary), sessionId, storableText(summary.trim())],
  );
}

export interface CodingOutcome {
  status: DeliveryStatus;
  error?: string;
  /** The owner's version of `error`, where it differs (it may name what the agent's code chose). */
  errorDetail?: string;
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
): Promise<{ status: DeliveryStatus; wrote: boolean }> {
  return em.transactional(async (tx) => {
    const ended = await run<{ status: DeliveryStatus; benchmark_run_id: number | null }>(
      tx,
      `with s as (
         update sessions set status = ?, error = ?, error_detail = ?, response = ?, completed_at = now(),
           latency_ms = (extract(epoch from now() - created_at) * 1000)::int
         where id = ? and status in ('pending', 'running') returning id, status)
       update coding_sessions c set tests_passed = ?, tests_total = ?, tampered = ?, arena_fault = ?, ended_at = now()
       from s where c.session_id = s.id returning s.status, c.benchmark_run_id`,
      [
        o.status,
        // The feed's error of a run found tampered with is the reason it scored 0.
        storableText(o.error ?? (o.tampered ? `tampered with: ${o.tampered}` : '')) || null,
        o.errorDetail === undefined ? null : storableText(o.errorDetail),
        storableText(o.response),
        sessionId,
        o.testsPassed ?? null,
        o.testsTotal ?? null,
        o.tampered === undefined ? null : storableText(o.tampered),
        o.status === 'error' && o.notAgentsFault === true,
      ],
    );
    const row = ended[0];
    if (!row) {
      const [now] = await run<{ status: DeliveryStatus }>(tx, `select status from sessions where id = ?`, [sessionId]);
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

export interface TamperedCodingSession {
  session_id: number;
  agent_id: number;
  agent_name: string;
  task_id: string;
  ended_at: Date | string;
  tampered: string;
  tamper_detail: string | null;
}

/** Sessions whose run of the hidden tests was found tampered with, newest first (`since`: ended after it). */
export function tamperedCodingSessions(
  em: EntityManager,
  filter: { since?: Date; agentId?: number; limit: number },
): Promise<TamperedCodingSession[]> {
  return run<TamperedCodingSession>(
    em,
    `select c.session_id, s.agent_id, a.name as agent_name, c.task_id, c.ended_at, c.tampered, c.tamper_detail
     from coding_sessions c join sessions s on s.id = c.session_id join agents a on a.id = s.agent_id
     where c.tampered is not null and (?::timestamptz is null or c.ended_at >= ?) and (?::int is null or s.agent_id = ?)
     order by c.ended_at desc limit ?`,
    [filter.since ?? null, filter.since ?? null, filter.agentId ?? null, filter.agentId ?? null, filter.limit],
  );
}

/** What the judge saw of a run it found tampered with, kept for operators beside the public reason. */
export async function recordTamperDetail(em: EntityManager, sessionId: number, detail: string): Promise<void> {
  await run(em, `update coding_sessions set tamper_detail = ? where session_id = ?`, [
    storableText(detail).slice(0, 2000),
    sessionId,
  ]);
}

export interface ArenaFaultCodingSession {
  session_id: number;
  agent_id: number;
  agent_name: string;
  task_id: string;
  ended_at: Date | string;
  error: string | null;
}

/** Sessions that ended by the arena's own failure, newest first (`since`: ended after it). */
export function arenaFaultCodingSessions(
  em: EntityManager,
  filter: { since?: Date; agentId?: number; limit: number },
): Promise<ArenaFaultCodingSession[]> {
  return run<ArenaFaultCodingSession>(
    em,
    `select c.session_id, s.agent_id, a.name as agent_name, c.task_id, c.ended_at, s.error
     from coding_sessions c join sessions s on s.id = c.session_id join agents a on a.id = s.agent_id
     where c.arena_fault and (?::timestamptz is null or c.ended_at >= ?) and (?::int is null or s.agent_id = ?)
     order by c.ended_at desc limit ?`,
    [filter.since ?? null, filter.since ?? null, filter.agentId ?? null, filter.agentId ?? null, filter.limit],
  );
}

/** Each agent's ended coding sessions and those the arena's failure ended, for agents with at least one of those. */
export function arenaFaultsByAgent(
  em: EntityManager,
): Promise<Array<{ agent_id: number; agent_name: string; faults: number; ended: number }>> {
  return run(
    em,
    `select s.agent_id, a.name as agent_name, count(*) filter (where c.arena_fault)::int as faults, count(*)::int as ended
     from coding_sessions c join sessions s on s.id = c.session_id join agents a on a.id = s.agent_id
     where c.ended_at is not null
     group by s.agent_id, a.name having count(*) filter (where c.arena_fault) > 0
     order by faults desc, s.agent_id`,
  );
}
