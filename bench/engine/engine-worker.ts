/**
 * The engine baseline's worker process: the same runtime and worker options as the arena's, with a
 * no-op activity that reports when it ran, and the same-job baseline's push (`sameJobPush`); with
 * BENCH_ENGINE_SANDBOX_DIR, also a second worker on the step queue whose activity runs the sandbox
 * figure's command isolated, in a workspace of its own.
 */
import crypto from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import { Pool } from 'pg';
import { wallNow } from '../lib/clock';
import { loadConfig } from '../../infra/config';
import { checkIsolation, probeOf, runIsolated } from '../../infra/sandbox/isolation';
import { prepareWorkspace, removeWorkspace, type Workspace } from '../../infra/sandbox/workspaces';
import { installWorkerRuntime } from '../../worker/runtime';
import { STEP_COMMAND } from '../sandbox/step-command';
import { ENGINE_STEP_TASK_QUEUE, ENGINE_TASK_QUEUE } from './task-queue';
import { uidRangeOf } from '../../infra/sandbox/settings';

/** A worker on the step queue running the isolated command, with the workspace it runs in. */
async function startStepWorker(
  connection: NativeConnection,
  dir: string,
): Promise<{ worker: Worker; workspace: Workspace }> {
  const settings = { ...loadConfig().sandbox, dir };
  // The sessions' part's last uid but one: the bench's sessions lease from the bottom, its judges from a block above.
  const uid = settings.uidBase + uidRangeOf(settings).sessions - 2;
  const workspace = await prepareWorkspace(1_999_999_998, uid, [], settings);
  const check = await checkIsolation(probeOf(settings));
  if (!check.ok) throw new Error(check.reason);
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: ENGINE_STEP_TASK_QUEUE,
    activities: {
      async isolatedStep(): Promise<number> {
        const result = await runIsolated({
          workspace,
          command: STEP_COMMAND,
          timeoutSeconds: 60,
          limits: settings.limits,
        });
        return result.exit_code;
      },
    },
  });
  return { worker, workspace };
}

let pending: Array<[string, number]> = [];

/** The secret the same-job baseline signs with: one for every agent, as it only has to cost an HMAC. */
const SAME_JOB_SECRET = crypto.randomBytes(32);

/**
 * The same job as the arena's push activity with plain parts: read the delivery and its prompt,
 * sign the body, POST it (fetch, keep-alive), read the JSON answer and record it in one update.
 */
function sameJobPush(pool: Pool) {
  return async (id: number): Promise<void> => {
    const { rows } = await pool.query<{ url: string; prompt_id: number; text: string; category: string }>(
      `select d.url, p.id as prompt_id, p.text, p.category
       from same_job_deliveries d join same_job_prompts p on p.id = d.prompt_id where d.id = $1`,
      [id],
    );
    const row = rows[0];
    if (!row) throw new Error(`same-job delivery ${id} not found`);
    const body = JSON.stringify({
      prompt_id: row.prompt_id,
      prompt: row.text,
      category: row.category,
      deadline_seconds: 30,
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = crypto.createHmac('sha256', SAME_JOB_SECRET).update(`${timestamp}.${body}`).digest('hex');
    const sentAt = Date.now();
    const res = await fetch(row.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-arena-delivery': `same-${id}`,
        'x-arena-signature': `t=${timestamp},v1=${signature}`,
      },
      body,
      signal: AbortSignal.timeout(30_000),
    });
    const answer = (await res.json()) as { response?: unknown };
    await pool.query(
      `update same_job_deliveries set status = 'answered', response = $2, latency_ms = $3, completed_at = now()
       where id = $1 and status = 'pending'`,
      [id, typeof answer.response === 'string' ? answer.response : '', Date.now() - sentAt],
    );
  };
}

async function main(): Promise<void> {
  await installWorkerRuntime({
    logLevel: process.env.LOG_LEVEL ?? 'info',
    logFormat: 'json',
    metrics: true,
    shutdownSignals: [],
  });
  const connection = await NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
  pool.on('error', () => undefined);
  const worker = await Worker.create({
    connection,
    namespace: 'default',
    taskQueue: ENGINE_TASK_QUEUE,
    workflowBundle: { codePath: process.env.BENCH_ENGINE_BUNDLE! },
    activities: {
      async noop(tag: string): Promise<void> {
        pending.push([tag, wallNow()]);
      },
      sameJobPush: sameJobPush(pool),
    },
  });
  // Batched, as in the agent farm: one IPC message per activity would cost more than the activity.
  setInterval(() => {
    if (pending.length === 0) return;
    process.send?.({ arrivals: pending });
    pending = [];
  }, 20).unref();
  const sandboxDir = process.env.BENCH_ENGINE_SANDBOX_DIR;
  const steps = sandboxDir ? await startStepWorker(connection, sandboxDir) : undefined;
  const running = Promise.all([worker.run(), steps?.worker.run()]);
  process.send?.({ ready: true });
  const stop = () => {
    worker.shutdown();
    steps?.worker.shutdown();
    // Promise#finally waits for the promise its callback returns: each step ends before the next.
    /* oxlint-disable typescript/no-misused-promises */
    running
      .finally(() => (steps ? removeWorkspace(steps.workspace) : undefined))
      .finally(() => pool.end())
      .finally(() => connection.close().finally(() => process.exit(0)))
      /* oxlint-enable typescript/no-misused-promises */
      .catch((err: unknown) => {
        console.error(err);
        process.exit(1);
      });
  };
  process.once('SIGTERM', stop);
  process.once('disconnect', stop);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
