/**
 * SSRF with the address guard on (ARENA_ALLOW_PRIVATE_WEBHOOKS=false): inward targets are refused
 * when the URL is saved (400, nothing stored) and again when the socket connects, after the name's
 * DNS answer changed. Name resolution is the test's (a resolver whose answers it controls); the
 * guard, the API, the workflows and the sockets are the real ones.
 */
import type dns from 'node:dns';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { WebhookClient } from '../../infra/webhook/client';
import { answer, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

/** Loopback in every spelling, private ranges, metadata, CGNAT, IPv6 local ranges and IPv4 hidden in IPv6. */
const INWARD_URLS = [
  'http://127.0.0.1/hook',
  'http://localhost/hook',
  'http://LOCALHOST./hook',
  'http://api.localhost/hook',
  'http://0.0.0.0/hook',
  'http://[::1]/hook',
  'http://[::ffff:127.0.0.1]/hook',
  'http://2130706433/hook',
  'http://0x7f000001/hook',
  'http://127.1/hook',
  'http://0177.0.0.1/hook',
  'http://10.0.0.1/hook',
  'http://172.16.5.4/hook',
  'http://192.168.1.1/hook',
  'http://169.254.169.254/latest/meta-data/',
  'http://100.64.0.1/hook',
  'http://[fc00::1]/hook',
  'http://[fd12:3456::1]/hook',
  'http://[fe80::1]/hook',
  'http://[::ffff:10.0.0.1]/hook',
  'http://[64:ff9b::7f00:1]/hook',
  'http://[2002:7f00:1::1]/hook',
];

/** Names the test controls: each resolves to whatever the test set last. */
const answers = new Map<string, string[]>();
const resolveHost = async (hostname: string, options: dns.LookupAllOptions): Promise<dns.LookupAddress[]> => {
  const set = answers.get(hostname.toLowerCase());
  if (!set) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return set
    .map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
    .filter((a) => !options.family || a.family === options.family);
};

let t: TestApp;
let client: Client;
let target: TestAgentServer;
let owner: Registered;
let refusedCount = 0;

beforeAll(async () => {
  t = await startTestApp(
    { ARENA_ALLOW_PRIVATE_WEBHOOKS: 'false', ARENA_GYM_RETRY_SECONDS: '1' },
    { pingTimeoutMs: 1_500, resolveHost },
  );
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  // What an attacker would like to reach: a service on this host.
  target = await startAgentServer(answer(200, { response: 'inside' }));
  await t.startWorker();
  owner = await register(t.app);
}, 60_000);
afterAll(async () => {
  console.log(
    `SSRF: ${refusedCount} inward targets refused, ${target.received.length} requests reached the inside service`,
  );
  await target.close();
  await t.close();
});

const agents = async () =>
  (await t.orm.em.fork().getConnection().execute<Array<{ n: number }>>(`select count(*)::int as n from agents`))[0]!.n;

it(`refuses ${INWARD_URLS.length} forms of inward targets when a webhook URL is saved, and stores nothing`, async () => {
  expect(INWARD_URLS.length).toBeGreaterThanOrEqual(20);
  const before = await agents();
  for (const url of INWARD_URLS) {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'probe', webhook_url: url },
    });
    expect({ url, status: res.statusCode }).toEqual({ url, status: 400 });
    expect(res.json().detail).toMatch(/^webhook_url points to a (private or loopback address|loopback host) \(/);
    refusedCount++;
  }
  expect(await agents()).toBe(before);

  // Changing an agent's URL to one of them is refused the same way, and the old URL stays.
  answers.set('agent.example', ['192.0.2.10']);
  const agent = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'kept', webhook_url: 'http://agent.example/hook' },
    })
  ).json();
  for (const url of INWARD_URLS) {
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/agents/${agent.id}`,
      headers: owner.auth,
      payload: { webhook_url: url },
    });
    expect({ url, status: res.statusCode }).toEqual({ url, status: 400 });
    refusedCount++;
  }
  const detail = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}`, headers: owner.auth })).json();
  expect(detail.webhook_url).toBe('http://agent.example/hook');
  expect(target.received).toHaveLength(0);
});

it('refuses at connect time a public-looking name whose DNS answer is inward, or turns inward after saving', async () => {
  const port = new URL(target.url).port;
  // Inward from the start: saved (nothing about the name looks inward), but the ping never connects.
  answers.set('metadata.example', ['169.254.169.254']);
  const direct = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name: 'meta', webhook_url: `http://metadata.example:${port}/hook` },
  });
  expect(direct.statusCode).toBe(201);
  expect(direct.json()).toMatchObject({
    active: false,
    ping_error: 'refused: metadata.example resolves to a private address (169.254.169.254)',
  });
  refusedCount++;
  // One inward answer among public ones is enough to refuse the name.
  answers.set('mixed.example', ['192.0.2.20', '127.0.0.1']);
  const mixed = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name: 'mixed', webhook_url: `http://mixed.example:${port}/hook` },
  });
  expect(mixed.json().ping_error).toBe('refused: mixed.example resolves to a private address (127.0.0.1)');
  refusedCount++;

  // DNS rebinding: public when saved, the inside service's address afterwards.
  answers.set('rebind.example', ['192.0.2.30']);
  const saved = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name: 'rebinder', webhook_url: `http://rebind.example:${port}/hook` },
  });
  expect(saved.statusCode).toBe(201);
  const agentId = saved.json().id;
  answers.set('rebind.example', ['127.0.0.1']);
  const retest = await t.app.inject({ method: 'POST', url: `/api/agents/${agentId}/retest`, headers: owner.auth });
  expect(retest.json()).toEqual({
    id: agentId,
    active: false,
    ping_error: 'refused: rebind.example resolves to a private address (127.0.0.1)',
  });
  refusedCount++;

  // Even an agent that had passed its ping earlier gets no delivery through: the worker's socket is refused too.
  await t.orm.em
    .fork()
    .getConnection()
    .execute(`update agents set ping_ok = true, ping_error = null where id = ?`, [agentId]);
  const task = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agentId}/sandbox`,
    headers: owner.auth,
    payload: { prompt: 'reach in', deadline_seconds: 5 },
  });
  expect(task.statusCode).toBe(202);
  const sessionId = Number(task.json().id.split('-')[1]);
  expect(await client.workflow.getHandle(`delivery-${sessionId}`).result()).toEqual({ status: 'timeout' });
  // The owner reads the cause; the public only its class, without the name or the address.
  const feed = (
    await t.app.inject({ method: 'GET', url: `/api/agents/${agentId}/activity`, headers: owner.auth })
  ).json();
  expect(feed.sessions.find((s: { id: string }) => s.id === task.json().id).error).toMatch(
    /refused: rebind\.example resolves to a private address \(127\.0\.0\.1\)/,
  );
  const publicFeed = (await t.app.inject({ method: 'GET', url: `/api/agents/${agentId}/activity` })).json();
  expect(publicFeed.sessions.find((s: { id: string }) => s.id === task.json().id).error).toBe(
    'deadline exceeded (5 s); last attempt: the webhook resolves to an address the arena does not call',
  );
  refusedCount++;
  expect(target.received).toHaveLength(0);
}, 60_000);

it('never follows a redirect, so a webhook cannot bounce a request inward', async () => {
  // The first hop has to be on this host for the test to reach it, which the guard forbids; redirects
  // are refused whatever the guard says, so the client here allows private targets to show that alone.
  const inside = await startAgentServer(answer(200, { response: 'inside' }));
  const bouncer = http.createServer((_req, res) => res.writeHead(302, { location: `${inside.url}` }).end());
  await new Promise<void>((resolve) => bouncer.listen(0, '127.0.0.1', resolve));
  const webhooks = new WebhookClient({ allowPrivate: true });
  try {
    for (const status of [301, 302, 303, 307, 308]) {
      bouncer.removeAllListeners('request');
      bouncer.on('request', (_req, res) => res.writeHead(status, { location: inside.url }).end());
      const result = await webhooks.post({
        url: `http://127.0.0.1:${(bouncer.address() as AddressInfo).port}/hook`,
        body: '{}',
        secret: 'agsec_x',
        deliveryId: 'sandbox-1',
        timeoutMs: 5_000,
      });
      expect(result).toMatchObject({ kind: 'response', status });
      refusedCount++;
    }
    expect(inside.received).toHaveLength(0);
  } finally {
    await webhooks.close();
    await new Promise((resolve) => bouncer.close(resolve));
    await inside.close();
  }
});
