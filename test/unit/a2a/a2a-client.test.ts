/**
 * The A2A client's own rules, on loopback servers: every call goes through the address guard (the
 * card, and each address the card names), redirects are not followed, answers are bounded, and a
 * reply's text is read from a message or a task as the protocol puts it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { describeCard, readAgentCard, readReply, wellKnownCardUrls } from '../../../infra/a2a/agent-client';
import { A2aCallError } from '../../../infra/a2a/guarded-fetch';
import { a2aFetch } from '../../../infra/a2a/ping';
import { WebhookClient } from '../../../infra/webhook/client';

const servers: http.Server[] = [];
const clients: WebhookClient[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  for (const s of servers) s.closeAllConnections();
  await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(handler: http.RequestListener): Promise<{ url: string; hits: http.IncomingMessage[] }> {
  const hits: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

function webhooks(allowPrivate: boolean, resolveHost?: ConstructorParameters<typeof WebhookClient>[0]['resolveHost']) {
  const client = new WebhookClient({ allowPrivate, ...(resolveHost ? { resolveHost } : {}) });
  clients.push(client);
  return client;
}

async function refusal(call: Promise<unknown>): Promise<A2aCallError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(A2aCallError);
  return err as A2aCallError;
}

describe('the address guard on every call', () => {
  it('refuses a card on a private address before connecting, saying which field', async () => {
    const card = await serve((_req, res) => res.end('{}'));
    const err = await refusal(a2aFetch(webhooks(false))(`${card.url}/.well-known/agent-card.json`));
    expect(err).toMatchObject({ stage: 'private-address', neverSent: true });
    expect(err.message).toBe('agent_card_url points to a private or loopback address (127.0.0.1)');
    expect(card.hits).toHaveLength(0);
  });

  it("refuses an address the card names, such as the cloud's metadata service", async () => {
    const signed = a2aFetch(webhooks(false), { secret: 's', deliveryId: 'main-1' });
    const err = await refusal(signed('http://169.254.169.254/a2a', { method: 'POST', body: '{}' }));
    expect(err.message).toBe("the agent card's JSON-RPC url points to a private or loopback address (169.254.169.254)");
    expect(err.neverSent).toBe(true);
  });

  it('refuses a host name that resolves inward, at connect time', async () => {
    const inward = webhooks(false, async () => [{ address: '10.0.0.7', family: 4 }]);
    const err = await refusal(a2aFetch(inward)('http://agent.example/.well-known/agent-card.json'));
    expect(err).toMatchObject({ stage: 'private-address', neverSent: true });
    expect(err.message).toMatch(/agent\.example resolves to a private address \(10\.0\.0\.7\)/);
  });

  it('does not follow a redirect, even to an address it may call', async () => {
    const target = await serve((_req, res) => res.end('{}'));
    const redirecting = await serve((_req, res) => {
      res.writeHead(302, { location: `${target.url}/card.json` });
      res.end();
    });
    const err = await refusal(a2aFetch(webhooks(true))(`${redirecting.url}/card.json`));
    expect(err.message).toMatch(/answered a redirect \(HTTP 302\), which is not followed/);
    expect(target.hits).toHaveLength(0);
  });

  it('refuses an answer larger than 1 MiB, declared or streamed', async () => {
    const big = await serve((_req, res) => {
      res.write('x'.repeat(700 * 1024));
      res.end('x'.repeat(700 * 1024));
    });
    const err = await refusal(a2aFetch(webhooks(true))(`${big.url}/card.json`));
    expect(err).toMatchObject({ stage: 'too-large' });
  });

  it('signs a call with a body, with the bearer secret and the push signature', async () => {
    const agent = await serve((_req, res) => res.end('{}'));
    await a2aFetch(webhooks(true), { secret: 'sek', deliveryId: 'gym-4' })(`${agent.url}/a2a`, {
      method: 'POST',
      body: '{"a":1}',
    });
    const headers = agent.hits[0]!.headers;
    expect(headers.authorization).toBe('Bearer sek');
    expect(headers['x-arena-delivery']).toBe('gym-4');
    expect(headers['x-arena-signature']).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('reading a card', () => {
  const fetchImpl = a2aFetch(webhooks(true));
  const v1 = (url: string, protocolVersion = '1.0', protocolBinding = 'JSONRPC') => ({
    url,
    protocolBinding,
    tenant: '',
    protocolVersion,
  });

  it('names what is missing when the card offers no JSON-RPC interface', () => {
    const reading = describeCard(fetchImpl, {
      name: 'x',
      supportedInterfaces: [v1('https://a.example/rest', '1.0', 'HTTP+JSON')],
    });
    expect(reading).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^the agent card names no JSON-RPC interface/),
    });
    expect(describeCard(fetchImpl, ['not', 'an', 'object'])).toEqual({
      ok: false,
      error: 'the agent card is not a JSON object',
    });
  });

  it('prefers A2A 1.0 where both are offered, and reads a 0.3 card as 0.3', () => {
    const both = describeCard(fetchImpl, {
      name: 'x',
      supportedInterfaces: [v1('https://a.example/old', '0.3'), v1('https://a.example/new')],
    });
    expect(both).toMatchObject({ ok: true, endpoint: 'https://a.example/new', protocolVersion: '1.0' });
    const old = describeCard(fetchImpl, {
      name: 'x',
      url: 'https://a.example/rpc',
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      capabilities: {},
      skills: [],
      defaultInputModes: [],
      defaultOutputModes: [],
      description: '',
      version: '1',
    });
    expect(old).toMatchObject({ ok: true, endpoint: 'https://a.example/rpc', protocolVersion: '0.3.0' });
  });
});

describe("finding a card from the agent's base URL", () => {
  const card = (endpoint: string) =>
    JSON.stringify({
      name: 'based',
      description: '',
      version: '1',
      supportedInterfaces: [{ url: endpoint, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
      capabilities: {},
      skills: [],
      defaultInputModes: [],
      defaultOutputModes: [],
    });

  it('looks under the path, then at the root, as the Python and JavaScript SDKs do; a .json URL is taken as given', () => {
    expect(wellKnownCardUrls('https://a.example')).toEqual(['https://a.example/.well-known/agent-card.json']);
    expect(wellKnownCardUrls('https://a.example/agents/x?v=1')).toEqual([
      'https://a.example/agents/x/.well-known/agent-card.json',
      'https://a.example/.well-known/agent-card.json',
    ]);
    expect(wellKnownCardUrls('https://a.example/agents/x/')).toEqual(wellKnownCardUrls('https://a.example/agents/x'));
    expect(wellKnownCardUrls('https://a.example/cards/x.json')).toEqual([]);
  });

  it('reads the card at the well-known path when the base URL answers with none', async () => {
    const agent = await serve((req, res) => {
      if (req.url === '/a2a/.well-known/agent-card.json') res.end(card('http://127.0.0.1:1/a2a'));
      else res.writeHead(404).end();
    });
    const reading = await readAgentCard(a2aFetch(webhooks(true)), `${agent.url}/a2a`, 5_000);
    expect(reading).toMatchObject({ ok: true, endpoint: 'http://127.0.0.1:1/a2a', protocolVersion: '1.0' });
    expect(agent.hits.map((h) => h.url)).toEqual(['/a2a', '/a2a/.well-known/agent-card.json']);
  });

  it('names every place it looked when none has a card', async () => {
    const nothing = await serve((_req, res) => res.writeHead(404).end());
    const reading = await readAgentCard(a2aFetch(webhooks(true)), `${nothing.url}/a2a`, 5_000);
    expect(reading).toEqual({
      ok: false,
      error:
        `the agent card at ${nothing.url}/a2a answered HTTP 404, and there is no card at ` +
        `${nothing.url}/a2a/.well-known/agent-card.json or ${nothing.url}/.well-known/agent-card.json`,
    });
    const named = await readAgentCard(a2aFetch(webhooks(true)), `${nothing.url}/card.json`, 5_000);
    expect(named).toEqual({ ok: false, error: `the agent card at ${nothing.url}/card.json answered HTTP 404` });
    const page = await serve((_req, res) => res.end('<html>hello</html>'));
    expect(await readAgentCard(a2aFetch(webhooks(true)), `${page.url}/card.json`, 5_000)).toEqual({
      ok: false,
      error: `the agent card at ${page.url}/card.json is not JSON`,
    });
  });
});

describe("reading a reply's text", () => {
  const text = (value: string) => ({
    content: { $case: 'text' as const, value },
    metadata: undefined,
    filename: '',
    mediaType: '',
  });
  const message = (...parts: string[]): Message => ({
    messageId: 'm',
    contextId: '',
    taskId: '',
    role: Role.ROLE_AGENT,
    parts: parts.map(text),
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });
  const task = (state: TaskState, options: { artifacts?: string[]; said?: string } = {}): Task => ({
    id: 't-1',
    contextId: 'c',
    status: { state, message: options.said ? message(options.said) : undefined, timestamp: undefined },
    artifacts: (options.artifacts ?? []).map((a, i) => ({
      artifactId: `a${i}`,
      name: '',
      description: '',
      parts: [text(a)],
      metadata: undefined,
      extensions: [],
    })),
    history: [],
    metadata: undefined,
  });

  it.each([
    ['a message: its text parts', message('6 x 7 =', '42'), { kind: 'answer', text: '6 x 7 =\n42' }],
    [
      'a completed task: its artifacts',
      task(TaskState.TASK_STATE_COMPLETED, { artifacts: ['42'], said: 'done' }),
      { kind: 'answer', text: '42' },
    ],
    [
      'a completed task with no artifact: its status message',
      task(TaskState.TASK_STATE_COMPLETED, { said: '42' }),
      { kind: 'answer', text: '42' },
    ],
    ['a task still working', task(TaskState.TASK_STATE_WORKING), { kind: 'working', taskId: 't-1' }],
    ['a submitted task', task(TaskState.TASK_STATE_SUBMITTED), { kind: 'working', taskId: 't-1' }],
    [
      'a failed task: its message',
      task(TaskState.TASK_STATE_FAILED, { said: 'out of tokens' }),
      { kind: 'failed', error: "the agent's task ended failed: out of tokens" },
    ],
    [
      'a rejected task',
      task(TaskState.TASK_STATE_REJECTED),
      { kind: 'failed', error: "the agent's task ended rejected" },
    ],
    [
      'a task asking for input',
      task(TaskState.TASK_STATE_INPUT_REQUIRED),
      {
        kind: 'failed',
        error: "the agent's task asked for more (input-required), which the arena does not give",
        openTaskId: 't-1',
      },
    ],
  ])('%s', (_case, reply, expected) => {
    expect(readReply(reply)).toEqual(expected);
  });
});
