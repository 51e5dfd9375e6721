import { verifySignature } from 'arena-runner/signing';
import { promptBody as body, secret, useWebhookFixtures } from '../../webhook/support/client-fixture';
import { answerJson } from '../../webhook/support/loopback-server';

const { server, client, post } = useWebhookFixtures();

describe('WebhookClient responses', () => {
  it('returns a 2xx JSON body with status and timestamps, having sent the signed body', async () => {
    const hook = await server(answerJson(200, { response: 'hi there' }));
    const before = Date.now();
    const result = await post(client(), `${hook.url}/agent/hook?token=abc`);
    const after = Date.now();

    expect(result).toEqual({
      kind: 'response',
      status: 200,
      body: '{"response":"hi there"}',
      sentAt: expect.any(Number),
      receivedAt: expect.any(Number),
    });
    if (result.kind !== 'response') throw new Error('unreachable');
    expect(before).toBeLessThanOrEqual(result.sentAt);
    expect(result.sentAt).toBeLessThanOrEqual(result.receivedAt);
    expect(result.receivedAt).toBeLessThanOrEqual(after);

    const received = await hook.nextRequest();
    expect(received.method).toBe('POST');
    expect(received.path).toBe('/agent/hook?token=abc');
    expect(received.body.toString('utf8')).toBe(body);
    expect(received.headers['content-type']).toBe('application/json');
    expect(received.headers['user-agent']).toBe('AgentArena/1');
    expect(received.headers['x-arena-delivery']).toBe('main-42');
    expect(Math.abs(Number(received.headers['x-arena-timestamp']) - Date.now() / 1000)).toBeLessThan(5);
    expect(verifySignature(secret, received.headers, received.body, { requireTimestamp: true })).toBe(true);
    expect(JSON.stringify(received.headers)).not.toContain(secret);
  });

  it('uses the configured User-Agent', async () => {
    const hook = await server(answerJson(204, {}));
    await post(client({ allowPrivate: true, userAgent: 'ArenaTest/9' }), hook.url);
    expect((await hook.nextRequest()).headers['user-agent']).toBe('ArenaTest/9');
  });

  it('returns a 500 as a response', async () => {
    const hook = await server((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('boom');
    });
    const result = await post(client(), hook.url);
    expect(result).toMatchObject({ kind: 'response', status: 500, body: 'boom' });
  });

  it('returns a 302 without ever requesting its Location', async () => {
    const target = await server(answerJson(200, { response: 'should never be asked' }));
    const hook = await server((_req, res) => {
      res.writeHead(302, { location: `${target.url}/elsewhere` });
      res.end();
    });
    const c = client();
    const result = await post(c, hook.url);
    expect(result).toMatchObject({ kind: 'response', status: 302, body: '' });
    await c.close();
    expect(hook.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  it('accepts a body of exactly maxResponseBytes', async () => {
    const hook = await server((_req, res) => res.end('x'.repeat(64)));
    const result = await post(client({ allowPrivate: true, maxResponseBytes: 64 }), hook.url);
    expect(result).toMatchObject({ kind: 'response', status: 200, body: 'x'.repeat(64) });
  });

  it('refuses a body over the limit that announces its length', async () => {
    const hook = await server((_req, res) => {
      res.writeHead(200, { 'content-length': '2000' });
      res.end('y'.repeat(2000));
    });
    const result = await post(client({ allowPrivate: true, maxResponseBytes: 1000 }), hook.url);
    expect(result).toMatchObject({
      kind: 'failure',
      stage: 'too-large',
      neverSent: false,
      message: 'response larger than 1000 bytes',
    });
    if (result.kind === 'failure') expect(result.sentAt).toEqual(expect.any(Number));
    await hook.allConnectionsClosed();
  });

  it('stops reading a streamed body once it passes the limit', async () => {
    let writes = 0;
    const hook = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }); // chunked: no length announced
      const timer = setInterval(() => {
        writes += 1;
        res.write('z'.repeat(512));
      }, 5);
      res.on('close', () => clearInterval(timer));
    });
    const result = await post(client({ allowPrivate: true, maxResponseBytes: 2048 }), hook.url);
    expect(result).toMatchObject({
      kind: 'failure',
      stage: 'too-large',
      neverSent: false,
      message: 'response larger than 2 KiB',
    });
    await hook.allConnectionsClosed();
    expect(writes).toBeLessThan(50);
  });

  it('says 1 MiB by default in the too-large message', async () => {
    const hook = await server((_req, res) => {
      res.writeHead(200, { 'content-length': String(1024 * 1024 + 1) });
      res.end();
    });
    const result = await post(client(), hook.url);
    expect(result).toMatchObject({ kind: 'failure', stage: 'too-large', message: 'response larger than 1 MiB' });
  });
});

describe('WebhookClient lifecycle', () => {
  it('reuses one kept-alive connection for consecutive deliveries', async () => {
    const hook = await server(answerJson(200, { response: 'ok' }));
    const c = client();
    const first = await post(c, hook.url);
    // undici frees the socket for the pool a microtask after the response ends, so a request sent in
    // that same turn opens a second connection; deliveries are never that close in practice.
    await new Promise((resolve) => setImmediate(resolve));
    const second = await post(c, hook.url);
    expect([first.kind, second.kind]).toEqual(['response', 'response']);
    expect(hook.requests).toHaveLength(2);
    expect(hook.requests[1]!.remotePort).toBe(hook.requests[0]!.remotePort);
  });

  it('close() waits for requests in flight, then refuses new ones', async () => {
    const hook = await server((_req, res) => setTimeout(() => res.end('late but fine'), 50));
    const c = client();
    const pending = post(c, hook.url);
    await hook.nextRequest();
    await c.close();
    expect(await pending).toMatchObject({ kind: 'response', status: 200, body: 'late but fine' });
    expect(await post(c, hook.url)).toEqual({
      kind: 'failure',
      stage: 'network',
      neverSent: true,
      message: 'webhook client is closed',
    });
    await hook.allConnectionsClosed();
  });
});
