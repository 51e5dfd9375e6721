/**
 * `arena backup` and `arena restore`: an arena backed up, its data folder lost and restored from the
 * backup and its key, reads and works as before; and what they refuse, they refuse changing nothing.
 */
import { createHmac } from 'node:crypto';
import fs from 'node:fs/promises';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { main } from '../../cli/main';
import { INTERRUPTED_BY_RESTORE } from '../../cli/backup';
import { migrateDatabase } from '../../infra/db/migrate';
import { readOrCreateEncryptionKey } from '../../infra/embedded/encryption-key';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../infra/embedded/postgres';
import { findOrInstallPostgresTools } from '../../infra/embedded/postgres-tools';
import { runCommand } from '../../infra/embedded/processes';
import { freePort } from '../../infra/ports';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { startArena, type Arena } from '../arena/support';
import { startTestApp, type TestApp } from '../support/test-app';
import { createTestDatabase, prepareDatabase, type TestDatabase } from '../support/test-db';
import { until } from '../support/wait';

const hmac = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
const IN_FLIGHT = 'held while the backup is made';

let dataDir: string;
let backupDir: string;
let pgPort: number;
let pg: EmbeddedPostgres | undefined;
let arena: Arena | undefined;
/** Until the first arena is stopped for the backup; a failed set-up leaves it running. */
let arenaRunning = false;
let restored: TestApp | undefined;
let scratch: TestDatabase | undefined;
let backupFile: string;
let key: Buffer;
let before: Record<string, unknown>;
let inFlight: number;
let restoreOutput: string[];
/** Requests of the in-flight delivery, held unanswered until the backup is made. */
const held: http.ServerResponse[] = [];
// Made in beforeAll: a spy made while the file is collected would be another part's too.
let errorSpy: jest.SpiedFunction<typeof console.error>;

/** The embedded stack's environment: no DATABASE_URL, TEMPORAL_ADDRESS or key, so the data folder's. */
const embeddedEnv = (): NodeJS.ProcessEnv => ({
  ARENA_DATA_DIR: dataDir,
  ARENA_PG_PORT: String(pgPort),
  DATABASE_URL: '',
  TEMPORAL_ADDRESS: '',
  ARENA_ENCRYPTION_KEY: '',
});

async function arenaCli(argv: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; out: string[]; err: string }> {
  const out: string[] = [];
  const errors: string[] = [];
  errorSpy.mockImplementation((...args: unknown[]) => void errors.push(args.join(' ')));
  try {
    const code = await main(argv, (line) => out.push(line), env);
    return { code, out, err: errors.join('\n') };
  } finally {
    errorSpy.mockReset();
  }
}

/** What the public and the owners read: the same before the backup and after the restore. */
async function reads(t: TestApp, a: Arena): Promise<Record<string, unknown>> {
  const get = async (url: string, headers: Record<string, string> = {}) => {
    const res = await t.app.inject({ method: 'GET', url, headers });
    // The vote export is JSON lines: compared as text.
    return {
      status: res.statusCode,
      body: String(res.headers['content-type']).startsWith('application/json') ? res.json() : res.body,
    };
  };
  const result: Record<string, unknown> = {
    leaderboard: await get('/api/leaderboard'),
    votes: await get('/api/votes'),
  };
  for (const agent of a.agents) {
    result[`account ${agent.id}`] = await get('/api/account', agent.owner.auth);
    result[`agent ${agent.id}`] = await get(`/api/agents/${agent.id}`, agent.owner.auth);
    result[`activity ${agent.id}`] = await get(`/api/agents/${agent.id}/activity`);
    result[`coding ${agent.id}`] = await get(`/api/agents/${agent.id}/coding`);
    result[`ratings ${agent.id}`] = await get(`/api/agents/${agent.id}/ratings`);
    result[`user ${agent.owner.userId}`] = await get(`/api/users/${agent.owner.userId}`);
  }
  return result;
}

/** A coding result as a finished coding session leaves it: a passed `swe` session with its task and score. */
async function addCodingResult(a: Arena, agentId: number): Promise<void> {
  await a.sql(
    `insert into coding_tasks (id, title, language, statement, manifest, files, hidden_tests, suite, added_at)
     values ('python/backup-check', 'Backup check', 'python', 'Add two numbers.', '{}', '{}', '{}', 'humaneval', now())`,
  );
  const [session] = await a.sql<{ id: number }>(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, response, completed_at, created_at)
     values (?, 'sandbox', (select min(id) from prompts), 'push', 'swe', 600, 'passed', 'done', now(), now()) returning id`,
    [agentId],
  );
  await a.sql(
    `insert into coding_sessions (session_id, task_id, token_nonce, max_steps, steps, tests_passed, tests_total, expires_at, ended_at)
     values (?, 'python/backup-check', 'nonce', 10, 3, 4, 4, now(), now())`,
    [session!.id],
  );
}

beforeAll(async () => {
  errorSpy = jest.spyOn(console, 'error');
  dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-backup-data-'));
  backupDir = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-backup-files-'));
  backupFile = path.join(backupDir, 'arena.dump');
  pgPort = await freePort();

  // An arena on the embedded stack's data folder: its database and its key file.
  pg = await startEmbeddedPostgres({ dataDir, port: pgPort });
  await prepareDatabase(pg.url);
  key = await readOrCreateEncryptionKey(dataDir);
  arena = await startArena(
    2,
    {
      ARENA_ENCRYPTION_KEY: key.toString('hex'),
      ARENA_MIN_GAP_SECONDS: '0',
      ARENA_MIN_VOTES: '1',
      ARENA_VOTES_PER_PAIR: '1',
    },
    { databaseUrl: pg.url },
  );
  arenaRunning = true;
  const answering = (req: { body: string; url: string }, res: http.ServerResponse) => {
    if (JSON.parse(req.body).prompt === IN_FLIGHT && held.length === 0) return void held.push(res);
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ response: `answer from ${req.url}` }));
  };
  arena.server.behave(answering);
  // Three rounds: each agent answers prompts the other did, so judge/next has a pair to show.
  for (let round = 0; round < 3; round++) await arena.dispatch();
  await arena.voteOnceAndRefresh();
  await addCodingResult(arena, arena.agents[0]!.id);
  before = await reads(arena.t, arena);

  // A delivery the agent has not answered yet when the backup is made.
  const started = await arena.t.app.inject({
    method: 'POST',
    url: `/api/agents/${arena.agents[1]!.id}/sandbox`,
    headers: arena.agents[1]!.owner.auth,
    payload: { prompt: IN_FLIGHT, deadline_seconds: 60 },
  });
  expect(started.statusCode).toBe(202);
  inFlight = Number(started.json().id.split('-')[1]);
  await until(async () => held.length === 1);

  // Backed up from the running arena, then stopped.
  const backup = await arenaCli(['backup', backupFile], embeddedEnv());
  expect(backup).toMatchObject({ code: 0, err: '' });
  for (const res of held) res.writeHead(500).end();
  await arena.t.close();
  arenaRunning = false;
  await pg.stop();
  pg = undefined;

  // The data folder is lost; the key was kept with the backup, and is put back after the restore.
  await fs.copyFile(path.join(dataDir, 'encryption.key'), path.join(backupDir, 'encryption.key'));
  await fs.rm(dataDir, { recursive: true, force: true });
  const restore = await arenaCli(['restore', backupFile], embeddedEnv());
  expect(restore).toMatchObject({ code: 0, err: '' });
  restoreOutput = restore.out;
  await fs.copyFile(path.join(backupDir, 'encryption.key'), path.join(dataDir, 'encryption.key'));

  // Started again as npm start does: the data folder's database and key, a Temporal without the old workflows.
  pg = await startEmbeddedPostgres({ dataDir, port: pgPort });
  await migrateDatabase(pg.url);
  restored = await startTestApp(
    { ARENA_ENCRYPTION_KEY: (await readOrCreateEncryptionKey(dataDir)).toString('hex') },
    { databaseUrl: pg.url },
  );
  await restored.startWorker();
}, 240_000);

afterAll(async () => {
  errorSpy?.mockRestore();
  for (const res of held) if (!res.writableEnded) res.end();
  await restored?.close();
  if (arenaRunning) await arena?.t.close();
  await arena?.server.close();
  await scratch?.drop();
  await pg?.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
  await fs.rm(backupDir, { recursive: true, force: true });
}, 60_000);

describe('a backup restored into a wiped data folder', () => {
  it('reads the same: API keys authenticate, and feeds, leaderboard, profiles and coding results are as they were', async () => {
    const after = await reads(restored!, arena!);
    const agent1 = arena!.agents[1]!.id;
    // The delivery that was in flight is the one new entry of its agent's feed.
    const feed = after[`activity ${agent1}`] as { body: { items?: unknown[] } | unknown[] };
    delete after[`activity ${agent1}`];
    const { [`activity ${agent1}`]: feedBefore, ...rest } = before;
    expect(after).toEqual(rest);
    expect(JSON.stringify(feed)).toContain(`sandbox-${inFlight}`);
    expect(JSON.stringify(feedBefore)).not.toContain(`sandbox-${inFlight}`);
    // What the comparison rests on is there: rows on the board, votes, a coding pass, authenticated reads.
    const seeded = before as Record<string, { status: number; body: unknown }>;
    expect((seeded.leaderboard!.body as unknown[]).length).toBeGreaterThan(0);
    expect(String(seeded.votes!.body).trim().split('\n')).toHaveLength(1);
    expect(JSON.stringify(seeded[`coding ${arena!.agents[0]!.id}`]!.body)).toContain('python/backup-check');
    expect(seeded[`account ${agent1}`]!.status).toBe(200);
  });

  it('ends the delivery that was in flight as an error, and says which one to redeliver', async () => {
    const [row] = await restored!.orm.em
      .fork()
      .getConnection()
      .execute(`select status, error from sessions where id = ?`, [inFlight]);
    expect(row).toEqual({ status: 'error', error: INTERRUPTED_BY_RESTORE });
    expect(restoreOutput.join('\n')).toContain(`sandbox-${inFlight}`);
    // The key was put back only after the restore, which says to.
    expect(restoreOutput.join('\n')).toContain(
      `now put back the encryption key that was in use when the backup was made, as ${path.join(dataDir, 'encryption.key')}`,
    );
  });

  it('redelivers it: the delivery completes, signed with the agent secret made before the backup', async () => {
    const t = restored!;
    const redeliver = await arenaCli(['redeliver', `sandbox-${inFlight}`], {
      DATABASE_URL: pg!.url,
      TEMPORAL_ADDRESS: t.config.temporalAddress,
      TEMPORAL_NAMESPACE: t.config.temporalNamespace,
      TEMPORAL_TASK_QUEUE: t.config.taskQueue,
      ARENA_ENCRYPTION_KEY: t.config.encryptionKey.toString('hex'),
    });
    expect(redeliver).toMatchObject({ code: 0, err: '' });
    const newId = Number(/as sandbox-(\d+)/.exec(redeliver.out.join('\n'))![1]);
    const client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
    await client.workflow.getHandle(deliveryWorkflowId(newId)).result();
    const [row] = await t.orm.em
      .fork()
      .getConnection()
      .execute(`select status, response from sessions where id = ?`, [newId]);
    const agent = arena!.agents[1]!;
    expect(row).toEqual({ status: 'answered', response: `answer from ${agent.path}` });
    const request = arena!.server.received.filter((r) => r.url === agent.path).at(-1)!;
    expect(JSON.parse(request.body).prompt).toBe(IN_FLIGHT);
    expect(request.headers['x-arena-signature']).toBe(hmac(agent.secret, request.body));
  });

  it('holds no key material: neither the encryption key nor an API key or agent secret appears in it', async () => {
    const tools = await findOrInstallPostgresTools({ major: 17, toolDir: path.join(dataDir, 'tools') });
    const sql = path.join(backupDir, 'backup.sql');
    await runCommand(tools.pgRestore, [`--file=${sql}`, backupFile]);
    const text = await fs.readFile(sql, 'utf8');
    expect(text).toContain('secret_sealed'); // the data is there to be searched
    const plain = [key.toString('hex'), ...arena!.agents.flatMap((a) => [a.secret, a.owner.apiKey])];
    expect(plain.filter((p) => text.includes(p))).toEqual([]);
  });
});

describe('refusals', () => {
  const unchanged = () =>
    restored!.orm.em
      .fork()
      .getConnection()
      .execute(`select (select count(*) from agents)::int as agents, (select count(*) from sessions)::int as sessions`);

  it('backup never overwrites a file', async () => {
    const content = await fs.readFile(backupFile);
    const again = await arenaCli(['backup', backupFile], embeddedEnv());
    expect(again.code).toBe(1);
    expect(again.err).toBe(
      `arena: ${backupFile} already exists, and a backup never overwrites a file: choose another name`,
    );
    expect((await fs.readFile(backupFile)).equals(content)).toBe(true);
  });

  it('restore refuses while the arena runs on the data folder', async () => {
    const counts = await unchanged();
    const res = await arenaCli(['restore', backupFile, '--force'], embeddedEnv());
    expect(res).toMatchObject({ code: 1 });
    expect(res.err).toBe(
      `arena: the arena's PostgreSQL is running on ${dataDir}: stop the arena before restoring into it`,
    );
    expect(await unchanged()).toEqual(counts);
  });

  it('restore refuses a non-empty database without --force, and a missing or damaged file with a one-line error', async () => {
    const env = { DATABASE_URL: pg!.url, ARENA_DATA_DIR: dataDir };
    const counts = await unchanged();
    const notEmpty = await arenaCli(['restore', backupFile], env);
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.err).toMatch(
      /^arena: the database arena on 127\.0\.0\.1:\d+ is not empty \(\d+ tables\): restore into an empty one, or add --force to replace what it holds$/,
    );

    const missing = await arenaCli(['restore', path.join(backupDir, 'nothing.dump'), '--force'], env);
    expect(missing).toMatchObject({
      code: 1,
      err: `arena: there is no backup at ${path.join(backupDir, 'nothing.dump')}`,
    });

    const foreign = path.join(backupDir, 'notes.txt');
    await fs.writeFile(foreign, 'not a backup\n');
    const notArchive = await arenaCli(['restore', foreign, '--force'], env);
    expect(notArchive).toMatchObject({
      code: 1,
      err: `arena: ${foreign} is not a backup made by arena backup (not a pg_dump archive); nothing was changed`,
    });

    const truncated = path.join(backupDir, 'truncated.dump');
    await fs.writeFile(truncated, (await fs.readFile(backupFile)).subarray(0, 4096));
    const damaged = await arenaCli(['restore', truncated, '--force'], env);
    expect(damaged.code).toBe(1);
    expect(damaged.err).toMatch(
      new RegExp(`^arena: ${truncated} cannot be read as a backup \\(pg_restore: .*\\); nothing was changed$`),
    );
    expect(await unchanged()).toEqual(counts);
    // The restored arena still answers with what it held.
    const account = arena!.agents[0]!.owner;
    expect((await restored!.app.inject({ method: 'GET', url: '/api/account', headers: account.auth })).statusCode).toBe(
      200,
    );
  });

  it('restore --force replaces what a database holds with the backup', async () => {
    scratch = await createTestDatabase();
    const env = { DATABASE_URL: scratch.url, ARENA_DATA_DIR: dataDir };
    // A migrated database counts as not empty.
    expect((await arenaCli(['restore', backupFile], env)).code).toBe(1);
    const forced = await arenaCli(['restore', backupFile, '--force'], env);
    expect(forced).toMatchObject({ code: 0, err: '' });
    expect(forced.out.join('\n')).toContain(`sandbox-${inFlight}`);
    const app = await startTestApp({}, { databaseUrl: scratch.url });
    try {
      const owner = arena!.agents[0]!.owner;
      const res = await app.app.inject({ method: 'GET', url: '/api/account', headers: owner.auth });
      expect(res.json()).toEqual((before[`account ${arena!.agents[0]!.id}`] as { body: unknown }).body);
    } finally {
      await app.close();
    }
  }, 60_000);
});
