import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { main } from '../../cli/main';
import { historyToJson } from '../../infra/temporal/history-json';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';
import { startOpsArena, type OpsArena } from './support';
import { eventually } from '../support/wait';

const REPO = path.resolve(__dirname, '..', '..');
const UI = 'http://temporal-ui.test';

let arena: OpsArena;
let env: NodeJS.ProcessEnv;
let flaky: { id: number };
let good: { id: number };
let failed: Array<{ id: string; sessionId: number }>;
let answered: { id: string; sessionId: number };
// Made in beforeAll: a spy made while the file is collected would be another part's too.
let errorSpy: jest.SpiedFunction<typeof console.error>;

beforeAll(async () => {
  errorSpy = jest.spyOn(console, 'error');
  // The `arena` bin runs the compiled CLI (dist/), built once per test run.
  const building = ensureBuilt();
  arena = await startOpsArena();
  env = {
    DATABASE_URL: arena.t.config.databaseUrl,
    TEMPORAL_ADDRESS: arena.t.config.temporalAddress,
    TEMPORAL_NAMESPACE: arena.t.config.temporalNamespace,
    TEMPORAL_TASK_QUEUE: arena.t.config.taskQueue,
    TEMPORAL_UI_URL: UI,
    ARENA_ENCRYPTION_KEY: arena.t.config.encryptionKey.toString('hex'),
  };
  flaky = await arena.createAgent({ name: 'flaky', webhook_url: arena.server.url.replace('/hook', '/flaky') });
  good = await arena.createAgent({ name: 'good', webhook_url: arena.server.url.replace('/hook', '/good') });
  arena.failing.flaky = true;
  failed = [
    await arena.sandbox(flaky.id, 'one'),
    await arena.sandbox(flaky.id, 'two'),
    await arena.sandbox(flaky.id, 'three'),
  ];
  answered = await arena.sandbox(good.id, 'fine');
  await Promise.all([...failed, answered].map((s) => arena.settle(s.sessionId)));
  await building;
}, 90_000 + BUILD_TIMEOUT_MS);
afterAll(async () => {
  errorSpy?.mockRestore();
  await arena.close();
});

async function arenaCli(...argv: string[]): Promise<{ code: number; out: string[]; err: string }> {
  const out: string[] = [];
  const errors: string[] = [];
  errorSpy.mockImplementation((...args: unknown[]) => void errors.push(args.join(' ')));
  const code = await main(argv, (line) => out.push(line), env);
  errorSpy.mockReset();
  return { code, out, err: errors.join('\n') };
}

const listed = async (...filters: string[]) =>
  (await arenaCli('deliveries', '--json', ...filters)).out.map((line) => JSON.parse(line));

describe('arena deliveries', () => {
  it('lists failed deliveries of an agent through Temporal visibility, with session ids and Temporal UI links', async () => {
    const rows = await eventually(async () => {
      const found = await listed('--agent', String(flaky.id), '--outcome', 'error', '--kind', 'sandbox');
      return found.length === 3 ? found : undefined;
    }, 'three failed deliveries in visibility');
    expect(rows.map((r) => r.session_id).sort()).toEqual(failed.map((f) => f.id).sort());
    for (const row of rows) {
      expect(row).toMatchObject({
        agent_id: flaky.id,
        kind: 'sandbox',
        mode: 'push',
        outcome: 'error',
        status: 'COMPLETED',
      });
      expect(row.ui_url).toBe(
        `${UI}/namespaces/${arena.t.config.temporalNamespace}/workflows/${row.workflow_id}/${row.run_id}/history`,
      );
    }
    const table = await arenaCli('deliveries', '--agent', String(flaky.id), '--outcome', 'failed', '--since', '1h');
    expect(table.code).toBe(0);
    expect(table.out[0]).toMatch(/^SESSION\s+AGENT\s+MODE\s+OUTCOME\s+STARTED\s+TEMPORAL UI$/);
    expect(table.out.filter((line) => line.startsWith('sandbox-'))).toHaveLength(3);
    expect(table.out.at(-1)).toBe('3 deliveries');
  });

  it('narrows by kind, outcome and time, and refuses bad filters plainly', async () => {
    const fine = await eventually(async () => {
      const found = await listed('--agent', String(good.id), '--kind', 'sandbox', '--outcome', 'answered');
      return found.length === 1 ? found : undefined;
    }, 'the answered delivery in visibility');
    expect(fine[0].session_id).toBe(answered.id);
    expect(await listed('--agent', String(flaky.id), '--outcome', 'answered', '--kind', 'sandbox')).toEqual([]);
    expect((await listed('--agent', String(flaky.id), '--kind', 'sandbox', '--limit', '2')).length).toBe(2);
    expect(
      (await arenaCli('deliveries', '--agent', String(flaky.id), '--kind', 'gym', '--outcome', 'cancelled')).out,
    ).toEqual(['no deliveries match']);
    for (const [flag, value, message] of [
      ['--since', 'yesterday', '--since: must be a duration such as 90s, 15m, 1h or 7d'],
      ['--agent', 'seven', '--agent: '],
      ['--limit', '0', '--limit: must be at least 1'],
    ] as const) {
      const res = await arenaCli('deliveries', flag, value);
      expect(res.code).toBe(1);
      expect(res.err).toContain(message);
    }
    expect((await arenaCli('deliveries', '--outcome', 'exploded')).code).toBe(1);
  });
});

describe('arena redeliver', () => {
  it('sends one delivery again as a new one linked to the original, with the original delivery id for the agent', async () => {
    arena.failing.flaky = false;
    const [first] = failed;
    const res = await arenaCli('redeliver', first!.id);
    expect(res.code).toBe(0);
    const match = /^redelivered (sandbox-\d+) as (sandbox-(\d+)) \(workflow delivery-\d+\)$/.exec(res.out[0]!);
    expect(match?.[1]).toBe(first!.id);
    const newId = Number(match![3]);
    expect(await arena.settle(newId)).toEqual({ status: 'answered' });
    const feed = (await arena.t.app.inject({ method: 'GET', url: `/api/agents/${flaky.id}/activity` })).json();
    expect(feed.sessions.find((s: { id: string }) => s.id === match![2])).toMatchObject({
      status: 'answered',
      redelivery_of: first!.id,
      prompt: 'one',
    });
    expect(feed.sessions.find((s: { id: string }) => s.id === first!.id)).toMatchObject({
      status: 'error',
      redelivery_of: null,
    });
    // The agent sees the original delivery id again, so it can tell a redelivery from a new prompt.
    const sent = arena.server.received.filter((r) => r.url === '/flaky' && JSON.parse(r.body).prompt === 'one');
    expect(sent.map((r) => r.headers['x-arena-delivery'])).toEqual([first!.id, first!.id]);
    const summary = await arena.client.workflow
      .getHandle(`delivery-${newId}`)
      .describe()
      .then((d) => d.staticSummary());
    expect(summary).toBe(`agent ${flaky.id} · sandbox · sandbox (push, 20 s) · redelivery of ${first!.id}`);
  });

  it('redelivers every failed delivery a filter finds, each once, however often it runs', async () => {
    const bulk = await arenaCli('redeliver', '--agent', String(flaky.id), '--kind', 'sandbox');
    expect(bulk.code).toBe(0);
    expect(bulk.out.at(-1)).toBe('2 redelivered, 1 skipped');
    expect(bulk.out).toContain(`skipped ${failed[0]!.id}: already redelivered`);
    const links = await arena.sql<{ id: number; redelivery_of_id: number }>(
      `select id, redelivery_of_id from sessions where redelivery_of_id is not null order by id`,
    );
    expect(links.map((l) => `sandbox-${l.redelivery_of_id}`).sort()).toEqual(failed.map((f) => f.id).sort());
    await Promise.all(links.map((l) => arena.settle(l.id)));
    await eventually(
      async () => ((await listed('--agent', String(flaky.id), '--outcome', 'failed')).length === 3 ? true : undefined),
      'visibility to settle',
    );
    const again = await arenaCli('redeliver', '--agent', String(flaky.id), '--kind', 'sandbox');
    expect(again.out.at(-1)).toBe('0 redelivered, 3 skipped');
    expect((await arena.sql(`select id from sessions where redelivery_of_id is not null`)).length).toBe(3);
  });

  it('refuses an unknown or running delivery, and ids mixed with filters', async () => {
    const unknown = await arenaCli('redeliver', 'sandbox-999999999');
    expect([unknown.code, unknown.err]).toEqual([1, 'arena: delivery sandbox-999999999 not found']);
    expect((await arenaCli('redeliver', 'not-an-id')).err).toBe('arena: delivery not-an-id not found');
    expect((await arenaCli('redeliver', failed[0]!.id, '--agent', '1')).err).toBe(
      'arena: give a session id or filters, not both',
    );
    expect((await arenaCli('redeliver')).err).toMatch(/give a session id/);
    const puller = await arena.createAgent({ name: 'slow-puller', mode: 'pull' });
    const running = await arena.sandbox(puller.id, 'wait', 300);
    const res = await arenaCli('redeliver', running.id);
    expect(res.err).toBe(
      `arena: delivery ${running.id} is still running; only a delivery that has ended can be sent again`,
    );
  });
});

describe('arena replay', () => {
  let historyFile: string;
  const workDir = path.join(REPO, 'test-artifacts', 'replay');

  beforeAll(() => fs.mkdirSync(workDir, { recursive: true }));

  it('replays a history by workflow id, by visibility query and from a file against this checkout', async () => {
    const byId = await arenaCli('replay', '--workflow-id', `delivery-${answered.sessionId}`);
    expect(byId.code).toBe(0);
    expect(byId.out).toEqual([
      `ok                 delivery-${answered.sessionId}`,
      'replayed 1 history against workflows: 1 ok, 0 failed',
    ]);

    // The three failed sandbox deliveries and their three redeliveries.
    const byQuery = await arenaCli(
      'replay',
      '--query',
      `WorkflowType = 'deliverPrompt' AND ArenaAgentId = ${flaky.id} AND ArenaKind = 'sandbox'`,
    );
    expect(byQuery.code).toBe(0);
    expect(byQuery.out.at(-1)).toBe('replayed 6 histories against workflows: 6 ok, 0 failed');

    historyFile = path.join(workDir, `delivery-${answered.sessionId}.json`);
    const history = await arena.client.workflow.getHandle(`delivery-${answered.sessionId}`).fetchHistory();
    fs.writeFileSync(historyFile, JSON.stringify(historyToJson(history)));
    const fromFile = await arenaCli('replay', '--file', historyFile);
    expect(fromFile.code).toBe(0);
    expect(fromFile.out[0]).toBe(`ok                 delivery-${answered.sessionId}`);
  }, 120_000);

  it('names the workflow that a deliberately non-deterministic change of deliverPrompt can no longer replay, and exits 1', async () => {
    // Built here, never shipped: the real workflows, but deliverPrompt sleeps before it starts.
    const changed = path.join(workDir, 'sleepy-workflows.ts');
    const real = path.join(REPO, 'workflows');
    fs.writeFileSync(
      changed,
      [
        `import { sleep } from '@temporalio/workflow';`,
        `import { deliverPrompt as realDeliverPrompt } from ${JSON.stringify(real)};`,
        `export * from ${JSON.stringify(real)};`,
        `export async function deliverPrompt(input: Parameters<typeof realDeliverPrompt>[0]) {`,
        `  await sleep(10);`,
        `  return realDeliverPrompt(input);`,
        `}`,
      ].join('\n'),
    );
    const res = await arenaCli('replay', '--workflow-id', `delivery-${answered.sessionId}`, '--workflows', changed);
    expect(res.code).toBe(1);
    expect(res.out[0]).toMatch(new RegExp(`^NON-DETERMINISTIC  delivery-${answered.sessionId}: .*Nondeterminism`));
    expect(res.out.at(-1)).toMatch(/: 0 ok, 1 failed$/);
    // The same change against the saved file: the same verdict, without a Temporal server.
    const offline = await main(['replay', '--file', historyFile, '--workflows', changed], () => undefined, {
      ...env,
      TEMPORAL_ADDRESS: '127.0.0.1:1',
    });
    expect(offline).toBe(1);
  }, 120_000);

  it('needs exactly one source, and says so', async () => {
    expect((await arenaCli('replay')).err).toBe('arena: give exactly one of --workflow-id, --query or --file');
    expect((await arenaCli('replay', '--workflow-id', 'x', '--query', 'y')).code).toBe(1);
    expect((await arenaCli('replay', '--file', '/nonexistent/history.json')).err).toMatch(
      /^arena: cannot read \/nonexistent\/history.json/,
    );
    expect((await arenaCli('replay', '--query', `WorkflowId = 'no-such-workflow'`)).err).toBe(
      'arena: no histories matched; nothing was replayed',
    );
  });
});

describe('arena reset', () => {
  it('gives a waiting delivery a new run from its last or first workflow task, and the delivery still completes', async () => {
    const puller = await arena.createAgent({ name: 'reset-puller', mode: 'pull' });
    const secret = { 'x-arena-secret': puller.webhook_secret };
    // The gym's prompts come first; answer them until the gym is complete, so only the sandbox prompts remain.
    const gym = arena.client.workflow.getHandle(`gym-${puller.id}-1`);
    while ((await gym.describe()).status.name === 'RUNNING') {
      const res = await arena.t.app.inject({
        method: 'GET',
        url: `/api/agents/${puller.id}/work/next?wait=1`,
        headers: secret,
      });
      if (res.statusCode !== 200) continue;
      await arena.t.app.inject({
        method: 'POST',
        url: `/api/agents/${puller.id}/work/${res.json().work_id}/result`,
        headers: secret,
        payload: { response: 'gym' },
      });
    }
    for (const to of ['last-workflow-task', 'first'] as const) {
      const task = await arena.sandbox(puller.id, `reset ${to}`, 120);
      const handle = arena.client.workflow.getHandle(`delivery-${task.sessionId}`);
      // queueWork runs as a local activity: its marker is in the history once the work is queued.
      const queued = (e: { markerRecordedEventAttributes?: { markerName?: string | null } | null }) =>
        e.markerRecordedEventAttributes?.markerName === 'core_local_activity';
      await eventually(
        async () => ((await handle.fetchHistory()).events!.some(queued) ? true : undefined),
        'work to be queued',
      );
      const before = (await handle.describe()).runId;
      const res = await arenaCli('reset', `delivery-${task.sessionId}`, '--to', to);
      expect(res.code).toBe(0);
      const after = (await handle.describe()).runId;
      expect(after).not.toBe(before);
      expect(res.out).toEqual([
        expect.stringMatching(
          new RegExp(
            `^reset delivery-${task.sessionId} to event \\d+ \\(${to}\\): run ${before} was terminated, run ${after} continues$`,
          ),
        ),
      ]);
      const work: { work_id: string } = await eventually(async () => {
        const next = await arena.t.app.inject({
          method: 'GET',
          url: `/api/agents/${puller.id}/work/next?wait=1`,
          headers: secret,
        });
        return next.statusCode === 200 ? next.json() : undefined;
      }, 'the work item after the reset');
      expect(work.work_id).toBe(task.id);
      const posted = await arena.t.app.inject({
        method: 'POST',
        url: `/api/agents/${puller.id}/work/${task.id}/result`,
        headers: secret,
        payload: { response: 'after reset' },
      });
      expect(posted.statusCode).toBe(200);
      expect(await handle.result()).toEqual({ status: 'answered' });
    }
  }, 60_000);

  it('refuses an unknown workflow or reset point', async () => {
    expect((await arenaCli('reset', 'delivery-999999999')).err).toBe('arena: no workflow delivery-999999999');
    expect((await arenaCli('reset', `delivery-${answered.sessionId}`, '--to', 'middle')).code).toBe(1);
  });
});

it('runs as the `arena` bin, talking to the same Temporal server', async () => {
  const child = spawn(
    process.execPath,
    [path.join(REPO, 'cli', 'bin', 'arena.js'), 'deliveries', '--agent', String(good.id), '--json'],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const code = await new Promise((resolve) => child.once('close', resolve));
  expect(code).toBe(0);
  expect(
    out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).agent_id),
  ).toContain(good.id);
}, 60_000);

describe('the process commands', () => {
  const bin = path.join(REPO, 'cli', 'bin', 'arena.js');

  function runBin(
    argv: string[],
    extraEnv: NodeJS.ProcessEnv,
  ): { done: Promise<number | null>; output: () => string; stop: () => void } {
    const child = spawn(process.execPath, [bin, ...argv], {
      env: { ...process.env, ...extraEnv },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const done = new Promise<number | null>((resolve) => child.once('close', resolve));
    return { done, output: () => output, stop: () => child.kill('SIGTERM') };
  }

  it('arena migrate brings an empty database up to date and seeds the pool', async () => {
    const admin = new URL(process.env.TEST_PG_ADMIN_URL!);
    const name = `arena_cli_migrate_${Date.now()}`;
    const pg = await import('pg');
    const client = new pg.Client({ connectionString: admin.toString() });
    await client.connect();
    await client.query(`create database ${name}`);
    try {
      const url = new URL(admin.toString());
      url.pathname = `/${name}`;
      const run = runBin(['migrate'], { DATABASE_URL: url.toString() });
      expect(await run.done).toBe(0);
      const db = new pg.Client({ connectionString: url.toString() });
      await db.connect();
      const { rows } = await db.query(`select count(*)::int as n from prompts where source = 'pool'`);
      await db.end();
      expect(rows[0].n).toBeGreaterThan(100);
    } finally {
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    }
  }, 120_000);

  it('arena api and arena worker run the processes until SIGTERM, then stop cleanly', async () => {
    const port = await (await import('../../infra/ports')).freePort();
    const api = runBin(['api'], { ...env, HOST: '127.0.0.1', PORT: String(port), LOG_LEVEL: 'warn' });
    const worker = runBin(['worker'], {
      ...env,
      ARENA_WORKER_METRICS_PORT: '0',
      ARENA_DISPATCH_INTERVAL: '86400',
      ARENA_LEADERBOARD_INTERVAL: '86400',
      LOG_LEVEL: 'warn',
    });
    await eventually(
      async () => (/API listening on/.test(api.output()) ? true : undefined),
      'the API to listen',
      60_000,
    );
    await eventually(
      async () => (/worker polling task queue/.test(worker.output()) ? true : undefined),
      'the worker to poll',
      120_000,
    );
    expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
    api.stop();
    worker.stop();
    expect(await api.done).toBe(0);
    expect(await worker.done).toBe(0);
  }, 180_000);
});
