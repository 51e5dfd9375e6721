import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { redeliver } from '../../services/redeliveries';
import { register, type Registered, type TestApp } from '../support/test-app';
import { codingWork, feedEntryOf, startCodingArena, stepOf, type CodingArena, type CodingWork } from './coding-support';

let arena: CodingArena;
let t: TestApp;
let owner: Registered;
let agent: { id: number; webhook_secret: string };
let sandboxDir: string;

beforeAll(async () => {
  arena = await startCodingArena({ ARENA_GYM_RETRY_SECONDS: '1', ARENA_CODING_MAX_STEPS: '3' }, 'rules');
  ({ t, owner, agent, sandboxDir } = arena);
});
afterAll(() => arena.close());

const start = (payload: object, agentId = agent.id, auth = owner.auth) =>
  t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/sandbox`, headers: auth, payload });

/** Starts a session on a task and takes its work item. */
async function session(task = 'python/leap-year', deadline?: number): Promise<CodingWork> {
  const res = await start({ task, ...(deadline ? { deadline_seconds: deadline } : {}) });
  expect(res.statusCode).toBe(202);
  return codingWork(t, agent, res.json().id);
}

/** The agent's sandbox sessions (its gym adds sessions of its own meanwhile). */
const sandboxSessions = async () =>
  (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=100` }))
    .json()
    .sessions.filter((s: { kind: string }) => s.kind === 'sandbox').length;

const feedEntry = (publicId: string) => feedEntryOf(t, agent.id, publicId);

describe('starting a coding session', () => {
  it.each([
    [{ task: 'python/leap-year', prompt: 'and a prompt' }, 'send exactly one of prompt or task'],
    [{}, 'send exactly one of prompt or task'],
    [{ task: 'python/leap-year', deadline_seconds: 30 }, 'deadline_seconds must be at least 60 for a coding task'],
    [{ task: 'python/leap-year', category: 'x' }, 'category must be omitted for a coding task'],
    [{ prompt: 'hi', deadline_seconds: 600 }, 'deadline_seconds must be at most 300'],
  ])('refuses %j with 400 and starts nothing', async (payload, detail) => {
    const before = await sandboxSessions();
    const res = await start(payload);
    expect([res.statusCode, res.json().detail]).toEqual([400, detail]);
    expect(await sandboxSessions()).toBe(before);
  });

  it('answers a task that is not in the catalogue (or retired) with 404', async () => {
    const res = await start({ task: 'cobol/nothing' });
    expect([res.statusCode, res.json().detail]).toEqual([404, 'coding task cobol/nothing not found']);
  });

  it('is for the owner only: anyone else gets 404', async () => {
    const stranger = await register(t.app);
    const res = await start({ task: 'random' }, agent.id, stranger.auth);
    expect(res.statusCode).toBe(404);
  });
});

describe('the steps of a coding session', () => {
  let work: CodingWork;
  beforeAll(async () => {
    work = await session();
  });

  it('takes the session token or the agent secret, and nothing else', async () => {
    const step = stepOf(t, work.sandbox);
    expect(
      (await step('GET', 'files?path=.', undefined, { authorization: 'Bearer sbx_' + 'x'.repeat(43) })).statusCode,
    ).toBe(401);
    expect((await step('GET', 'files?path=.', undefined, { authorization: 'Bearer nonsense' })).statusCode).toBe(401);
    expect((await step('GET', 'files?path=.', undefined, { authorization: '' })).statusCode).toBe(401);
    const bySecret = await step('GET', 'files?path=.', undefined, {
      authorization: '',
      'x-arena-secret': agent.webhook_secret,
    });
    expect(bySecret.statusCode).toBe(200);
    const wrongSecret = await step('GET', 'files?path=.', undefined, {
      authorization: '',
      'x-arena-secret': `${agent.webhook_secret}x`,
    });
    expect([wrongSecret.statusCode, wrongSecret.json().detail]).toEqual([
      401,
      'a session token (Authorization: Bearer) or X-Arena-Secret is required',
    ]);
  });

  it('refuses a token of another session with 403, and a session of another agent with 404', async () => {
    const other = await session();
    const res = await stepOf(t, work.sandbox)('GET', 'files?path=.', undefined, {
      authorization: `Bearer ${other.sandbox.token}`,
    });
    expect([res.statusCode, res.json().detail]).toEqual([403, 'this token is for another session']);
    const url = new URL(work.sandbox.api);
    const elsewhere = await t.app.inject({
      method: 'GET',
      url: url.pathname.replace(`/agents/${agent.id}/`, `/agents/${agent.id + 1000}/`) + '/files?path=.',
      headers: { authorization: `Bearer ${work.sandbox.token}` },
    });
    expect(elsewhere.statusCode).toBe(404);
    await stepOf(t, other.sandbox)('POST', 'submit');
  });

  it.each([
    ['GET', 'files?path=../etc/passwd', undefined, 'path must not contain a ".." segment'],
    ['GET', 'files?path=/etc/passwd', undefined, 'path must be relative to the workspace root'],
    ['POST', 'exec', { command: '' }, 'command must not be empty'],
    ['POST', 'exec', { command: [] }, 'command must name a program'],
    ['POST', 'exec', { command: 'ls', timeout_seconds: 121 }, 'timeout_seconds must be at most 120'],
    ['POST', 'exec', { command: 'ls', shell: true }, 'the body has unknown field shell'],
  ] as const)('answers 400 to %s %s, and it is no step', async (method, what, payload, detail) => {
    const res = await stepOf(t, work.sandbox)(method, what, payload);
    expect([res.statusCode, res.json().detail]).toEqual([400, detail]);
  });

  it('answers a missing file with 404 and counts it as a step; past the cap, 429', async () => {
    const step = stepOf(t, work.sandbox);
    const missing = await step('GET', 'files?path=nothing-here.txt');
    expect(missing.statusCode).toBe(404);
    // Steps so far: the secret's listing, this read. One more, then the cap of 3.
    expect((await step('POST', 'exec', { command: 'true' })).statusCode).toBe(200);
    const capped = await step('POST', 'exec', { command: 'true' });
    expect([capped.statusCode, capped.json().detail]).toEqual([
      429,
      'the session has used all its 3 steps; submit to be scored',
    ]);
    // Submit still scores it: the starting files fail some hidden tests.
    const submitted = await step('POST', 'submit');
    expect(submitted.json()).toMatchObject({ status: 'failed', tests_total: 8 });
    expect(submitted.json().tests_passed).toBeLessThan(8);
    const entry = await feedEntry(work.work_id);
    expect(entry.response).toMatch(/in 3 steps\.$/);
    const again = await step('POST', 'submit');
    expect([again.statusCode, again.json().detail]).toEqual([409, 'the session has ended (failed)']);
  });
});

describe('the end of a coding session', () => {
  it('lets the owner cancel a running session: it is scored all the same, and the workspace goes', async () => {
    const work = await session();
    expect((await stepOf(t, work.sandbox)('POST', 'exec', { command: 'touch made-by-agent' })).statusCode).toBe(200);
    const cancelled = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox/${work.work_id}/cancel`,
      headers: owner.auth,
    });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json().status).toBe('cancelled');
    const after = await stepOf(t, work.sandbox)('POST', 'exec', { command: 'ls' });
    expect([after.statusCode, after.json().detail]).toEqual([409, 'the session has ended (cancelled)']);
    expect(fs.existsSync(path.join(sandboxDir, work.work_id.split('-')[1]!))).toBe(false);

    // An operator sends it again: a new session on the same task and prompt, with a workspace and
    // token of its own, linked to the original; the old token stays dead.
    const workflows = {
      client: new Client({ connection: t.temporal, namespace: t.config.temporalNamespace }),
      taskQueue: t.config.taskQueue,
      gymRetrySeconds: 1,
      callTimeoutMs: 10_000,
      eagerStart: false,
    };
    const again = await redeliver(t.orm.em.fork(), workflows, work.work_id);
    expect(again.redelivery_of).toBe(work.work_id);
    const redelivered = await codingWork(t, agent, again.session_id);
    expect(redelivered.prompt).toBe(work.prompt);
    expect(redelivered.sandbox.token).not.toBe(work.sandbox.token);
    const listing = await stepOf(t, redelivered.sandbox)('GET', 'files?path=.');
    expect(listing.json().entries.map((e: { name: string }) => e.name)).not.toContain('made-by-agent');
    expect((await stepOf(t, work.sandbox)('GET', 'files?path=.')).statusCode).toBe(409);
    expect((await stepOf(t, redelivered.sandbox)('POST', 'submit')).json().status).toBe('failed');
    expect(await feedEntry(again.session_id)).toMatchObject({ status: 'failed', redelivery_of: work.work_id });
  });
});
