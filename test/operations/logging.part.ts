import { Writable } from 'node:stream';
import { loggableUrl, createLogger } from '../../infra/logging';
import { register, startTestApp, type TestApp } from '../support/test-app';
import { WebClient } from '../web/support';

let t: TestApp;
const lines: string[] = [];

beforeAll(async () => {
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  t = await startTestApp({ LOG_LEVEL: 'trace' }, { logStream: stream });
});
afterAll(() => t.close());

const logged = () => lines.map((line) => JSON.parse(line) as Record<string, unknown>);

it('logs every request as JSON with its request id, and never a key, secret, password or one-use code', async () => {
  const owner = await register(t.app);
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name: 'puller', mode: 'pull' },
  });
  const { id, webhook_secret: secret } = created.json();
  await t.app.inject({ method: 'GET', url: `/api/agents/${id}/work/next`, headers: { 'x-arena-secret': secret } });
  const regenerated = (
    await t.app.inject({ method: 'POST', url: `/api/agents/${id}/regenerate-secret`, headers: owner.auth })
  ).json().webhook_secret;
  const password = 'my very secret password';
  const person = new WebClient(t.app);
  await person.submit('/signup', { email: 'logged@example.org', username: 'logged', password });
  await person.submit('/login', { email: 'logged@example.org', password: 'a wrong secret password' });
  await person.submit('/login', { email: 'logged@example.org', password });
  const key = /id="secret">([^<]+)</.exec((await person.submit('/account/api-key', {})).body)![1]!;
  await t.app.inject({ method: 'GET', url: '/auth/oidc/callback?code=one-use-code-123&state=state-456' });
  await t.app.inject({
    method: 'GET',
    url: '/api/account',
    headers: { authorization: 'Bearer arena_not-a-real-key-but-still-secret' },
  });

  const text = lines.join('\n');
  for (const secretValue of [
    owner.apiKey,
    secret,
    regenerated,
    password,
    'a wrong secret password',
    key,
    'one-use-code-123',
    'state-456',
    'arena_not-a-real-key-but-still-secret',
  ]) {
    expect({ leaked: secretValue, found: text.includes(secretValue) }).toEqual({ leaked: secretValue, found: false });
  }
  const entries = logged();
  const incoming = entries.filter((e) => e.msg === 'incoming request');
  expect(incoming.length).toBeGreaterThan(8);
  for (const entry of incoming) expect(entry.reqId).toEqual(expect.any(String));
  expect(incoming.map((e) => (e.req as { url: string }).url)).toContain(
    '/auth/oidc/callback?code=[redacted]&state=[redacted]',
  );
});

it('takes a caller’s X-Request-Id, answers with it and logs under it; anything else gets a fresh one', async () => {
  const res = await t.app.inject({ method: 'GET', url: '/api/version', headers: { 'x-request-id': 'trace-abc.123' } });
  expect(res.headers['x-request-id']).toBe('trace-abc.123');
  expect(
    logged()
      .filter((e) => e.reqId === 'trace-abc.123')
      .map((e) => e.msg),
  ).toEqual(['incoming request', 'request completed']);
  for (const bad of ['has spaces in it', 'x'.repeat(65), 'line\nbreak']) {
    const other = await t.app.inject({ method: 'GET', url: '/api/version', headers: { 'x-request-id': bad } });
    expect(other.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  }
  const plain = await t.app.inject({ method: 'GET', url: '/health' });
  expect(plain.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
});

it('redacts secret fields and headers in anything logged, here and in the worker', () => {
  const captured: string[] = [];
  const log = createLogger('info', { stream: { write: (line: string) => void captured.push(line) } });
  log.info(
    {
      password: 'hidden-p1',
      webhook_secret: 'hidden-s1',
      body: { api_key: 'hidden-k1', secret: 'hidden-s2', keep: 'visible' },
      headers: {
        authorization: 'Bearer hidden-k2',
        'x-arena-secret': 'hidden-s3',
        cookie: 'hidden-c1',
        accept: 'text/html',
      },
      req: { method: 'GET', url: '/x?token=hidden-t3', headers: { authorization: 'Bearer hidden-k3' } },
    },
    'something',
  );
  const entry = JSON.parse(captured[0]!);
  expect(entry).toMatchObject({
    password: '[redacted]',
    webhook_secret: '[redacted]',
    body: { api_key: '[redacted]', secret: '[redacted]', keep: 'visible' },
    headers: { authorization: '[redacted]', 'x-arena-secret': '[redacted]', cookie: '[redacted]', accept: 'text/html' },
    // A request is logged as method, URL (secret query values redacted) and address: never its headers.
    req: { method: 'GET', url: '/x?token=[redacted]' },
  });
  expect(captured[0]).not.toContain('hidden-');
  expect(loggableUrl('/cb?code=abc&next=%2F&state=x&token=t#frag')).toBe(
    '/cb?code=[redacted]&next=%2F&state=[redacted]&token=[redacted]#frag',
  );
});
