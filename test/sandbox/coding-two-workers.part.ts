/**
 * Coding sessions over two workers, each with its own workspace folder: whichever worker takes a
 * session prepares its workspace, and every later step (exec, read, write, the hidden tests, the
 * clean-up) runs on that worker's own task queue, where the files are, never on the other one.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestApp } from '../support/test-app';
import { WorkerProcess, workerEnv } from '../support/worker-process';
import { codingWork, removeSandboxDir, startCodingArena, stepOf, type CodingArena } from './coding-support';
import { eventually } from '../support/wait';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';

let arena: CodingArena;
let t: TestApp;
let otherDir: string;
let other: WorkerProcess;

beforeAll(async () => {
  await ensureBuilt();
  arena = await startCodingArena({ ARENA_GYM_RETRY_SECONDS: '3600', ARENA_SANDBOX_RATE_LIMIT: '1000' }, 'two');
  t = arena.t;
  otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-coding-'));
  fs.chmodSync(otherDir, 0o711);
  other = new WorkerProcess(workerEnv(t, { ARENA_SANDBOX_DIR: otherDir }));
  await other.ready;
}, BUILD_TIMEOUT_MS + 180_000);
afterAll(async () => {
  await other?.kill();
  await arena?.close();
  await removeSandboxDir(otherDir);
});

const sessionIdOf = (publicId: string) => Number(publicId.split('-')[1]);

async function workerQueueOf(publicId: string): Promise<string | null> {
  const [row] = await t.orm.em
    .fork()
    .getConnection()
    .execute('select worker_queue from coding_sessions where session_id = ?', [sessionIdOf(publicId)]);
  return (row?.worker_queue as string | null | undefined) ?? null;
}

/** Which of the two folders holds the session's workspace (`both` or `none` would be a fault). */
function holderOf(publicId: string): 'this' | 'other' | 'both' | 'none' {
  const here = fs.existsSync(path.join(arena.sandboxDir, String(sessionIdOf(publicId))));
  const there = fs.existsSync(path.join(otherDir, String(sessionIdOf(publicId))));
  return here && there ? 'both' : here ? 'this' : there ? 'other' : 'none';
}

it('runs every step of a session on the worker that prepared its workspace, with sessions on both workers', async () => {
  // Sessions are started until both workers hold some (each start goes to whichever worker polls first).
  const sessions: Array<{ id: string; queue: string }> = [];
  for (let i = 0; i < 16 && new Set(sessions.map((s) => s.queue)).size < 2; i++) {
    const started = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${arena.agent.id}/sandbox`,
      headers: arena.owner.auth,
      payload: { task: 'python/leap-year' },
    });
    expect(started.statusCode).toBe(202);
    const id: string = started.json().id;
    let queue: string | null = null;
    await eventually(async () => (queue = await workerQueueOf(id)) !== null, `the workspace of ${id}`);
    sessions.push({ id, queue: queue! });
  }
  const queues = new Set(sessions.map((s) => s.queue));
  expect(queues.size).toBe(2);

  const holders = new Map<string, string>();
  const remaining = sessions.map((s) => s.id);
  while (remaining.length > 0) {
    const work = await codingWork(t, arena.agent, remaining);
    remaining.splice(remaining.indexOf(work.work_id), 1);
    const step = stepOf(t, work.sandbox);
    expect((await step('PUT', 'files?path=where.txt', work.work_id, { 'content-type': 'text/plain' })).statusCode).toBe(
      204,
    );
    expect((await step('POST', 'exec', { command: 'cat where.txt' })).json().stdout).toBe(work.work_id);
    expect((await step('GET', 'files?path=where.txt')).body).toBe(work.work_id);

    // The file is in one folder only, and every session of a queue is in the same one.
    const holder = holderOf(work.work_id);
    expect(['this', 'other']).toContain(holder);
    const queue = sessions.find((s) => s.id === work.work_id)!.queue;
    expect(holders.get(queue) ?? holder).toBe(holder);
    holders.set(queue, holder);
    expect(
      fs.readFileSync(
        path.join(holder === 'this' ? arena.sandboxDir : otherDir, String(sessionIdOf(work.work_id)), 'where.txt'),
        'utf8',
      ),
    ).toBe(work.work_id);

    // The hidden tests and the clean-up run there too.
    expect((await step('POST', 'submit')).json()).toMatchObject({ status: 'failed', tests_total: 8 });
    await eventually(async () => holderOf(work.work_id) === 'none', `the workspace of ${work.work_id} to be removed`);
  }
  expect(new Set(holders.values())).toEqual(new Set(['this', 'other']));
}, 240_000);
