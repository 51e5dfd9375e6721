/**
 * A long-poll is answered outside Fastify once admitted (api/long-polls.ts), and its route sets the
 * security headers as it answers. Over real HTTP, its answers carry what Fastify's answers elsewhere
 * carry, so a hook added to the app later cannot quietly skip them.
 */
import { workPayload } from '../../api/schemas/delivery';
import { register, startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
let base: string;
let agent: { id: number; webhook_secret: string };
let auth: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp({}, { pastTheGym: false });
  const owner = await register(t.app);
  auth = owner.auth;
  agent = (
    await t.app.inject({ method: 'POST', url: '/api/agents', headers: auth, payload: { name: 'held', mode: 'pull' } })
  ).json();
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  await t.startWorker();
});
afterAll(() => t.close());

const next = (wait: number, secret = agent.webhook_secret) =>
  fetch(`${base}/api/agents/${agent.id}/work/next?wait=${wait}`, { headers: { 'x-arena-secret': secret } });

/** Header names, without those whose presence depends on the answer's body or on the rate limit. */
const names = (res: Response, leaveOut: readonly string[] = []) =>
  [...res.headers.keys()].filter((name) => !leaveOut.includes(name)).sort();

const BODY_HEADERS = ['content-type', 'content-length'];
const RATE_LIMIT_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset'];
const PER_ANSWER = ['date', 'x-request-id', ...RATE_LIMIT_HEADERS, ...BODY_HEADERS];

const gymComplete = async () =>
  (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}`, headers: auth })).json().gym.gym_complete ===
  true;

describe('a long-poll answered outside Fastify', () => {
  it("hands out the gym's prompts as the documented payload, with the body headers of any JSON answer", async () => {
    let handedOut = 0;
    while (!(await gymComplete())) {
      const work = await next(2);
      if (work.status === 204) continue;
      expect(work.status).toBe(200);
      expect(work.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const text = await work.text();
      expect(Number(work.headers.get('content-length'))).toBe(Buffer.byteLength(text));
      const body = JSON.parse(text);
      expect(workPayload.parse(body)).toEqual(body);
      const answered = await t.app.inject({
        method: 'POST',
        url: `/api/agents/${agent.id}/work/${body.work_id}/result`,
        headers: { 'x-arena-secret': agent.webhook_secret },
        payload: { response: `answer ${handedOut}` },
      });
      expect(answered.statusCode).toBe(200);
      handedOut++;
    }
    expect(handedOut).toBeGreaterThan(0);
  }, 60_000);

  it('carries the headers and header values Fastify puts on answers, on this route and elsewhere', async () => {
    const elsewhere = await fetch(`${base}/api/no-such-route`);
    expect(elsewhere.status).toBe(404);
    const refused = await next(0, 'not-the-secret');
    expect(refused.status).toBe(403);
    const empty = await next(0);
    expect(empty.status).toBe(204);
    expect(names(refused, BODY_HEADERS)).toEqual(names(elsewhere, BODY_HEADERS));
    expect(names(empty, BODY_HEADERS)).toEqual([...names(elsewhere, BODY_HEADERS), ...RATE_LIMIT_HEADERS].sort());
    for (const name of names(elsewhere, PER_ANSWER)) {
      expect([name, refused.headers.get(name)]).toEqual([name, elsewhere.headers.get(name)]);
      expect([name, empty.headers.get(name)]).toEqual([name, elsewhere.headers.get(name)]);
    }
    expect(names(elsewhere)).toContain('content-security-policy');
    expect(empty.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(empty.headers.get('x-ratelimit-limit')).toBe(String(t.config.limits.workPollsPerMinute));
  });

  it('is counted under its route pattern in the request metrics', async () => {
    const count = async () => {
      const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
      const line =
        /^arena_http_request_duration_seconds_count\{method="GET",route="\/api\/agents\/:id\/work\/next",status_code="204"\} (\d+)/m;
      return Number(line.exec(text)?.[1] ?? 0);
    };
    const before = await count();
    expect((await next(0)).status).toBe(204);
    expect(await count()).toBe(before + 1);
  });
});
