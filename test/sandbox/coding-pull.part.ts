import fs from 'node:fs';
import { ARENA_MARKER } from '../../infra/sandbox/sandbox-folder';
import { metricNow } from '../support/metrics';
import type { Registered, TestApp } from '../support/test-app';
import { codingWork, feedEntryOf, startCodingArena, stepOf, type CodingArena } from './coding-support';

let arena: CodingArena;
let t: TestApp;
let owner: Registered;
let agent: { id: number; webhook_secret: string };
let sandboxDir: string;

beforeAll(async () => {
  arena = await startCodingArena({ ARENA_GYM_RETRY_SECONDS: '1', ARENA_CODING_MAX_STEPS: '8' }, 'coder');
  ({ t, owner, agent, sandboxDir } = arena);
});
afterAll(() => arena.close());

const secret = () => ({ 'x-arena-secret': agent.webhook_secret });

const feedEntry = (publicId: string) => feedEntryOf(t, agent.id, publicId);

describe('a coding session in pull mode', () => {
  it('hands the runner the sandbox with its token; the agent reads, fixes, runs and submits, and the hidden tests pass it', async () => {
    const counts = () =>
      Promise.all([
        metricNow(t, 'arena_coding_sessions_total', { status: 'passed' }),
        metricNow(t, 'arena_coding_step_seconds_count', { kind: 'exec' }),
        metricNow(t, 'arena_coding_step_seconds_count', { kind: 'read' }),
      ]);
    const before = await counts();
    const started = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox`,
      headers: owner.auth,
      payload: { task: 'python/leap-year' },
    });
    expect(started.statusCode).toBe(202);
    expect(started.json()).toMatchObject({ kind: 'sandbox', category: 'swe', status: 'pending' });

    const work = await codingWork(t, agent, started.json().id);
    const step = stepOf(t, work.sandbox);
    expect(work.work_id).toBe(started.json().id);
    expect(work.sandbox).toMatchObject({ session_id: started.json().id, max_steps: 8 });
    expect(work.sandbox.api).toBe(`http://arena.test/api/agents/${agent.id}/sandbox/${started.json().id}`);
    expect(work.sandbox.token).toMatch(/^sbx_/);
    expect(work.prompt).toContain('leap');

    const listing = await step('GET', 'files?path=.');
    expect(listing.statusCode).toBe(200);
    expect(listing.json().entries.map((e: { name: string }) => e.name)).toContain('calendar_utils.py');

    const source = await step('GET', 'files?path=calendar_utils.py');
    expect(source.headers['content-type']).toMatch(/^text\/plain/);
    expect(source.body).toContain('    return year % 4 == 0');
    const fixed = source.body.replace(
      '    return year % 4 == 0',
      '    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)',
    );
    const written = await step('PUT', 'files?path=calendar_utils.py', fixed, {
      'content-type': 'text/plain',
    });
    expect(written.statusCode).toBe(204);

    const ran = await step('POST', 'exec', {
      command: ['python3', '-c', 'from calendar_utils import is_leap; print(is_leap(1900), is_leap(2000))'],
    });
    expect(ran.statusCode).toBe(200);
    expect(ran.json()).toMatchObject({ exit_code: 0, stdout: 'False True\n', truncated: false });

    const running = await feedEntry(work.work_id);
    expect(running.status).toBe('running');

    const submitted = await step('POST', 'submit');
    expect(submitted.statusCode).toBe(200);
    expect(submitted.json()).toEqual({ status: 'passed', tests_passed: 8, tests_total: 8 });

    // The runner's answer after submit is the session's summary, not a conflict.
    const result = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/work/${work.work_id}/result`,
      headers: secret(),
      payload: { response: 'fixed the century rule' },
    });
    expect(result.statusCode).toBe(200);

    // The feed tells the session: the summary, each step as a folded tool call and result, the score.
    const entry = await feedEntry(work.work_id);
    expect(entry.status).toBe('passed');
    // Its time is the session's, from its start to its score: four steps took more than nothing.
    const [lasted] = await t.orm.em
      .getConnection()
      .execute<Array<{ ms: number }>>(
        `select (extract(epoch from completed_at - created_at) * 1000)::int as ms from sessions where id = ?`,
        [Number(String(work.work_id).split('-')[1])],
      );
    expect(entry.latency_ms).toBeGreaterThan(0);
    expect(entry.latency_ms).toBe(lasted!.ms);
    expect(entry.response).toMatch(/^fixed the century rule\n\n~~~tool_call\nread \.\n~~~\n~~~tool_result\n/);
    expect(entry.response).toContain('~~~tool_call\nwrite calendar_utils.py');
    expect(entry.response).toContain('exit 0 in');
    expect(entry.response).toMatch(/\*\*passed\*\*: 8 of 8 hidden tests passed, in 4 steps\.$/);
    // The session is over: its token takes no more steps, and its workspace is gone.
    const after = await step('POST', 'exec', { command: 'ls' });
    expect(after.statusCode).toBe(409);
    expect(after.json().detail).toBe('the session has ended (passed)');
    // The workspace is gone; the judges' scratch file systems stay between scorings, emptied by the next.
    expect(fs.readdirSync(sandboxDir).filter((name) => !/^judge-\d+-scratch$/.test(name))).toEqual([ARENA_MARKER]);

    // The agent's page counts it: one task passed of one attempted, with the pass rate's interval.
    const page = await t.app.inject({
      method: 'GET',
      url: `/agents/${agent.id}`,
      headers: { accept: 'text/markdown' },
    });
    expect(page.body).toContain('coding 1/1 (21–100%)');

    // /metrics counts it by outcome, and the steps by kind (the worker runs in this process here).
    // One session passed, one exec step and two reads.
    const counted = await counts();
    expect(counted.map((n, i) => n - before[i]!)).toEqual([1, 1, 2]);
  });
});
