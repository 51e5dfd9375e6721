/**
 * The soak's settling: once the load has stopped and every fault is restored, each delivery still
 * open is followed to its end through its own workflow (`delivery-<session id>`), not by counting
 * rows. A delivery whose workflow is gone, or closed with the row still open, is lost: nothing will
 * ever write it. One whose workflow still runs is slow (a timer, or a write in back-off) and is
 * waited for, up to a bound read from its deadline and the retry policy; one still open there is
 * overdue, a defect like a lost one.
 */
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import fs from 'node:fs/promises';
import type { Pool } from 'pg';
import { sleep } from '../lib/clock';
import { deliveryWorkflowId } from '../../workflows/contracts';

/**
 * How long past a delivery's own deadline its row may stay open, from the workflow's numbers
 * (workflows/deliver-prompt.ts):
 * - the deadline once more: a pull item leased just before the deadline has its whole deadline from
 *   the lease, and the push activity's schedule-to-close is twice the deadline plus 10 s;
 * - 10 s: that push backstop's grace;
 * - 30 s + 30 s: the outcome's local write retries at most 30 s apart (maximumInterval) and an
 *   attempt may take 30 s (startToClose), so once PostgreSQL is back the write lands within a
 *   minute;
 * - 10 s: a workflow task lost with its worker (the worker killed, Temporal restarted) is handed
 *   out again after its 10 s timeout.
 * A fault stops the clock: the retries and timeouts above count from when the fault was restored
 * if that is later than the deadline. So does a late start: the deadline counts from the workflow's
 * start, which for a main prompt may come up to the dispatch activity's minute after its row.
 */
/** Ended this little past its deadline is ended at it: the prompt leaves, and its deadline starts, after the workflow's start. */
const DEADLINE_SLACK_MS = 2_000;

export function settleBoundMs(deadlineSeconds: number): number {
  return deadlineSeconds * 1000 + 10_000 + 30_000 + 30_000 + 10_000;
}

/**
 * `in time`: ended by its deadline. `slow`: ended past it, within its bound. `lost`: no workflow
 * (by its bound), or a workflow closed with the row still open. `overdue`: its workflow still runs
 * past the bound. `unsettled`: still running when the settling's own cap ran out, before its bound.
 */
export type SettleVerdict = 'in time' | 'slow' | 'lost' | 'overdue' | 'unsettled';
export const SETTLE_VERDICTS: readonly SettleVerdict[] = ['in time', 'slow', 'lost', 'overdue', 'unsettled'];
/** The verdicts that fail a soak: nothing will ever write these rows, or something holds them past the bound. */
export const FAILED_VERDICTS: readonly SettleVerdict[] = ['lost', 'overdue', 'unsettled'];

/** A delivery open when the settling began (or opened during it), and what became of it. */
export interface SettledDelivery {
  id: number;
  kind: string;
  mode: string;
  verdict: SettleVerdict;
  /**
   * Seconds past its deadline (from the later of its row and its workflow's start, plus 2 s for the
   * prompt to leave) when its row ended, or when it was given up on; negative inside it.
   */
  pastDeadlineS: number;
  /** Its bound, seconds past its deadline (or past the last fault's restoration, when later). */
  boundS: number;
  /** What its workflow showed: status, pending activities (attempt, last failure, next retry), pending workflow task. */
  detail: string;
}

export interface SettleRecord {
  /** How long the settling took. */
  ms: number;
  /** Every delivery that was open at some point of the settling. */
  deliveries: SettledDelivery[];
}

/** What the workflow of a delivery still open says: the verdict for the row. */
export function verdictOf(
  workflow: 'missing' | 'running' | 'closed',
  rowOpen: boolean,
  pastBound: boolean,
): 'ended' | 'lost' | 'overdue' | 'waiting' {
  if (!rowOpen) return 'ended';
  if (workflow === 'missing' || workflow === 'closed') return 'lost';
  return pastBound ? 'overdue' : 'waiting';
}

interface OpenRow {
  id: number;
  kind: string;
  mode: string;
  status: string;
  created_at: Date;
  deadline_seconds: number;
}

/**
 * Follows every delivery of `agents` still pending or running until it ends or is judged lost or
 * overdue. Each waits on its workflow's result (a long poll, no row polling), up to its bound past
 * max(its deadline, `restoredAt`); a delivery with no workflow yet is looked for again every few
 * seconds until that bound (the dispatcher writes rows before it starts their workflows). Rows that
 * open during the settling (a gym's next cycle) are followed too. `capMs` bounds the whole.
 */
export async function settle({
  temporalAddress,
  namespace,
  pool,
  agents,
  restoredAt,
  capMs,
  workerLog,
  log,
}: {
  temporalAddress: string;
  namespace: string;
  pool: Pool;
  agents: number[];
  /** When the last fault was restored (ms since the epoch). */
  restoredAt: number;
  capMs: number;
  /** The worker's log file: its lines about a lost or overdue delivery are logged with it. */
  workerLog?: string;
  log: (line: string) => void;
}): Promise<SettleRecord> {
  const start = Date.now();
  const capAt = start + capMs;
  const connection = await Connection.connect({ address: temporalAddress });
  const client = new Client({ connection, namespace });
  const seen = new Map<number, SettledDelivery>();
  const openRows = async (): Promise<OpenRow[]> => {
    for (;;) {
      try {
        const { rows } = await pool.query<OpenRow>(
          `select id, kind, mode, status, created_at, deadline_seconds from sessions
           where agent_id = any($1::int[]) and status in ('pending', 'running') order by id`,
          [agents],
        );
        return rows;
      } catch (err) {
        if (Date.now() > capAt) throw err;
        await sleep(1_000);
      }
    }
  };
  /** The row's end (completed_at, or now when it has none), or undefined while it is open (or unreadable). */
  const rowEnd = async (id: number): Promise<number | undefined> => {
    const { rows } = await pool
      .query<{ status: string; completed_at: Date | null }>(`select status, completed_at from sessions where id = $1`, [
        id,
      ])
      .catch(() => ({ rows: [{ status: 'pending', completed_at: null }] }));
    const row = rows[0];
    if (row && (row.status === 'pending' || row.status === 'running')) return undefined;
    return row?.completed_at?.getTime() ?? Date.now();
  };

  const follow = async (row: OpenRow): Promise<SettledDelivery> => {
    // The deadline counts from the workflow's start, which may come after the row (the dispatcher
    // writes a batch, then starts its workflows): it and the bound move with it once the workflow
    // is seen. A push deadline counts from the moment the prompt left, a moment later still.
    let deadlineAt = row.created_at.getTime() + row.deadline_seconds * 1000 + DEADLINE_SLACK_MS;
    let ownBoundAt = Math.max(deadlineAt, restoredAt) + settleBoundMs(row.deadline_seconds);
    let boundAt = Math.min(capAt, ownBoundAt);
    const startedAt = (ms: number | undefined) => {
      if (ms === undefined) return;
      deadlineAt = Math.max(deadlineAt, ms + row.deadline_seconds * 1000 + DEADLINE_SLACK_MS);
      ownBoundAt = Math.max(ownBoundAt, deadlineAt + settleBoundMs(row.deadline_seconds));
      boundAt = Math.min(capAt, ownBoundAt);
    };
    const handle = client.workflow.getHandle(deliveryWorkflowId(row.id));
    const done = (verdict: SettleVerdict, detail: string, at = Date.now()): SettledDelivery => ({
      id: row.id,
      kind: row.kind,
      mode: row.mode,
      verdict,
      pastDeadlineS: Math.round((at - deadlineAt) / 1000),
      boundS: Math.round((ownBoundAt - deadlineAt) / 1000),
      detail,
    });
    for (;;) {
      const state = await describe(handle);
      startedAt(state.startMs);
      if (state.workflow === 'running') {
        // Wait for the workflow to close, up to the bound: a long poll on its history.
        const abort = new AbortController();
        const timer = setTimeout(() => abort.abort(), Math.max(0, boundAt - Date.now()));
        await connection
          .withAbortSignal(abort.signal, () => handle.result())
          .catch(() => undefined)
          .finally(() => clearTimeout(timer));
      } else if (state.workflow === 'missing' && Date.now() < boundAt) {
        await sleep(Math.min(2_000, Math.max(0, boundAt - Date.now())));
      }
      const after = await describe(handle);
      const endedAt = await rowEnd(row.id);
      const verdict = verdictOf(after.workflow, endedAt === undefined, Date.now() >= boundAt);
      if (verdict === 'ended') {
        const at = endedAt ?? Date.now();
        return done(at > deadlineAt ? 'slow' : 'in time', after.detail, at);
      }
      // A missing workflow may still start (its starter retrying) until the bound.
      if (verdict === 'lost' && after.workflow === 'missing' && Date.now() < boundAt) continue;
      if (verdict === 'waiting') {
        await sleep(500); // a result call that failed at once (Temporal busy) is not retried in a spin
        continue;
      }
      if (verdict === 'overdue' && ownBoundAt > capAt) return done('unsettled', after.detail);
      return done(verdict, after.detail);
    }
  };

  try {
    for (;;) {
      const fresh = (await openRows()).filter((r) => !seen.has(r.id));
      if (fresh.length === 0) break;
      if (seen.size === 0)
        log(`${fresh.length} deliveries open once the load stopped; each followed through its workflow`);
      const settled = await Promise.all(fresh.map(follow));
      for (const d of settled) {
        seen.set(d.id, d);
        if (d.verdict !== 'in time')
          log(
            `${d.verdict}: ${d.kind}-${d.id} (${d.mode}), ${d.pastDeadlineS} s past its deadline (bound ${d.boundS} s): ${d.detail}`,
          );
        if (FAILED_VERDICTS.includes(d.verdict) && workerLog)
          for (const line of await linesAbout(workerLog, d.id)) log(`  worker: ${line}`);
      }
      if (Date.now() >= capAt) break;
    }
  } finally {
    await connection.close();
  }
  const deliveries = [...seen.values()].sort((a, b) => a.id - b.id);
  const counts = SETTLE_VERDICTS.map((v) => `${deliveries.filter((d) => d.verdict === v).length} ${v}`);
  log(`settled in ${Math.round((Date.now() - start) / 1000)} s: ${counts.join(', ')}`);
  return { ms: Date.now() - start, deliveries };
}

/** A workflow's state, and a line saying why it is where it is. */
async function describe(
  handle: ReturnType<Client['workflow']['getHandle']>,
): Promise<{ workflow: 'missing' | 'running' | 'closed'; startMs?: number; detail: string }> {
  try {
    const d = await handle.describe();
    const now = Date.now();
    const secondsAgo = (ms: number | undefined) => (ms === undefined ? '?' : `${Math.round((now - ms) / 1000)} s ago`);
    const secondsIn = (ms: number | undefined) => (ms === undefined ? '?' : `in ${Math.round((ms - now) / 1000)} s`);
    const activities =
      d.raw.pendingActivities
        ?.map(
          (a) =>
            `${a.activityType?.name} ${String(a.state ?? '')} attempt ${a.attempt}` +
            (a.lastFailure ? ` (last failure: ${a.lastFailure.message})` : '') +
            (a.nextAttemptScheduleTime ? `, next retry ${secondsIn(optionalTsToMs(a.nextAttemptScheduleTime))}` : ''),
        )
        .join('; ') || 'none';
    const task = d.raw.pendingWorkflowTask;
    const workflowTask = task
      ? `workflow task attempt ${task.attempt}, scheduled ${secondsAgo(optionalTsToMs(task.scheduledTime))}` +
        (task.startedTime ? `, started ${secondsAgo(optionalTsToMs(task.startedTime))}` : ', not started')
      : 'no workflow task';
    const running = d.status.name === 'RUNNING';
    return {
      workflow: running ? 'running' : 'closed',
      startMs: d.startTime.getTime(),
      detail: `${d.status.name}, started ${secondsAgo(d.startTime.getTime())}; pending activities: ${activities}; ${workflowTask}`,
    };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { workflow: 'missing', detail: 'no workflow' };
    // Temporal unreachable for a moment: say so, and let the caller look again.
    return { workflow: 'running', detail: `not described (${err instanceof Error ? err.message : String(err)})` };
  }
}

/** The worker's last log lines naming a session (its workflow id or its sessionId field). */
async function linesAbout(file: string, id: number, max = 8): Promise<string[]> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const mentions = new RegExp(`delivery-${id}\\b|"sessionId":\\s*${id}\\b`);
  return text
    .split('\n')
    .filter((line) => mentions.test(line))
    .slice(-max)
    .map((line) => line.slice(0, 400));
}
