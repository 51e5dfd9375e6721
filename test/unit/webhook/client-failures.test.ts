import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import { promptBody, secret, useWebhookFixtures } from '../../webhook/support/client-fixture';
import { answerJson, closedPort } from '../../webhook/support/loopback-server';
import { selfSignedCert, selfSignedKey } from '../../webhook/support/self-signed';

const { server, client, post } = useWebhookFixtures();

describe('WebhookClient failures', () => {
  it('times out on a slow webhook, says the request may have arrived, and drops the connection', async () => {
    const hook = await server(() => {
      /* never answers */
    });
    const result = await post(client(), hook.url, { timeoutMs: 300 });
    expect(result).toEqual({
      kind: 'failure',
      stage: 'timeout',
      neverSent: false,
      message: 'timed out after 0.3 s',
      sentAt: expect.any(Number),
    });
    expect((await hook.nextRequest()).body.length).toBeGreaterThan(0);
    await hook.allConnectionsClosed();
  });

  it('gives a request its whole timeout from the moment it was sent, however long connecting took', async () => {
    // The first request of a fresh client connects first; the others wait for a socket of their own.
    const hook = await server(() => {
      /* never answers */
    });
    const c = client();
    const early: string[] = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const result = await c.post({
          url: hook.url,
          body: promptBody,
          secret,
          deliveryId: `main-${i}`,
          timeoutMs: 800,
        });
        const ended = Date.now();
        expect(result).toMatchObject({ kind: 'failure', stage: 'timeout', neverSent: false });
        const sentAt = (result as { sentAt: number }).sentAt;
        if (ended - sentAt < 800) early.push(`main-${i} after ${ended - sentAt} ms`);
      }),
    );
    expect(early).toEqual([]);
  });

  it('bounds the wait before sending by sendWithinMs, then gives the request timeoutMs', async () => {
    const hook = await server(() => {
      /* never answers */
    });
    const started = Date.now();
    const result = await client().post({
      url: hook.url,
      body: promptBody,
      secret,
      deliveryId: 'main-7',
      sendWithinMs: 5_000,
      timeoutMs: 600,
    });
    expect(result).toMatchObject({ kind: 'failure', stage: 'timeout', message: 'timed out after 0.6 s' });
    expect(Date.now() - started).toBeLessThan(5_000);
    // A TLS handshake that never finishes: the request is never sent.
    const silent = net.createServer((socket) => socket.resume());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const handshaking = client();
      const unsent = await handshaking.post({
        url: `https://127.0.0.1:${port}/hook`,
        body: promptBody,
        secret,
        deliveryId: 'main-8',
        sendWithinMs: 300,
        timeoutMs: 60_000,
      });
      expect(unsent).toEqual({
        kind: 'failure',
        stage: 'timeout',
        neverSent: true,
        message: `timed out after 0.3 s connecting to 127.0.0.1:${port}`,
      });
      await handshaking.close();
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('times out when the headers came but the body stalls', async () => {
    const hook = await server((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('partial');
    });
    const result = await post(client(), hook.url, { timeoutMs: 300 });
    expect(result).toMatchObject({ kind: 'failure', stage: 'timeout', neverSent: false });
    await hook.allConnectionsClosed();
  });

  it('times out during a TLS handshake that never finishes, provably before sending', async () => {
    const received: Buffer[] = [];
    const silent = net.createServer((socket) => socket.on('data', (chunk) => received.push(chunk)));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const closed = new Promise<void>((resolve) =>
      silent.on('connection', (socket) => socket.on('close', () => resolve())),
    );
    try {
      const { port } = silent.address() as AddressInfo;
      const c = client();
      const result = await post(c, `https://127.0.0.1:${port}/hook`, { timeoutMs: 300 });
      expect(result).toEqual({
        kind: 'failure',
        stage: 'timeout',
        neverSent: true,
        message: `timed out after 0.3 s connecting to 127.0.0.1:${port}`,
      });
      await c.close();
      await closed;
      // Only the TLS ClientHello arrived: a handshake record (0x16), never HTTP.
      expect(Buffer.concat(received)[0]).toBe(0x16);
      expect(Buffer.concat(received).toString('latin1')).not.toContain('POST');
    } finally {
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('reports a refused connection as never sent', async () => {
    const port = await closedPort();
    const result = await post(client(), `http://127.0.0.1:${port}/hook`);
    expect(result).toEqual({
      kind: 'failure',
      stage: 'refused',
      neverSent: true,
      message: `connection refused by 127.0.0.1:${port}`,
    });
  });

  it('reports a DNS failure as never sent', async () => {
    const result = await post(client({ allowPrivate: false }), 'https://nosuch.invalid/hook');
    expect(result).toEqual({
      kind: 'failure',
      stage: 'dns',
      neverSent: true,
      message: 'DNS lookup failed for nosuch.invalid',
    });
  });

  it('reports a TLS handshake failure as never sent', async () => {
    const plainHttp = await server(answerJson(200, {}));
    const result = await post(client(), `https://127.0.0.1:${plainHttp.port}/hook`);
    expect(result).toMatchObject({ kind: 'failure', stage: 'tls', neverSent: true });
    if (result.kind === 'failure') expect(result.message).toMatch(/^TLS handshake failed: /);
    expect(plainHttp.requests).toHaveLength(0);
  });

  it('reports an untrusted certificate as a TLS failure, never sent', async () => {
    let requests = 0;
    const tlsHook = https.createServer({ cert: selfSignedCert, key: selfSignedKey }, (_req, res) => {
      requests += 1;
      res.end('{}');
    });
    await new Promise<void>((resolve) => tlsHook.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = tlsHook.address() as AddressInfo;
      const result = await post(client(), `https://127.0.0.1:${port}/hook`);
      expect(result).toEqual({
        kind: 'failure',
        stage: 'tls',
        neverSent: true,
        message: 'TLS handshake failed: self-signed certificate',
      });
      expect(requests).toBe(0);
    } finally {
      tlsHook.closeAllConnections();
      await new Promise((resolve) => tlsHook.close(resolve));
    }
  });

  it('lets the caller cancel a request in flight', async () => {
    const hook = await server(() => {
      /* never answers */
    });
    const controller = new AbortController();
    const pending = post(client(), hook.url, { signal: controller.signal });
    await hook.nextRequest();
    controller.abort();
    expect(await pending).toMatchObject({
      kind: 'failure',
      stage: 'network',
      neverSent: false,
      message: 'cancelled before the webhook answered',
    });
    await hook.allConnectionsClosed();
  });

  it('reads a caller deadline (AbortSignal.timeout) as a timeout', async () => {
    const hook = await server(() => {
      /* never answers */
    });
    const result = await post(client(), hook.url, { signal: AbortSignal.timeout(200), timeoutMs: 10_000 });
    expect(result).toMatchObject({ kind: 'failure', stage: 'timeout', neverSent: false });
  });

  it('does not send when the caller already cancelled', async () => {
    const hook = await server(answerJson(200, {}));
    const result = await post(client(), hook.url, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ kind: 'failure', neverSent: true });
    expect(hook.requests).toHaveLength(0);
  });

  it('reports a connection dropped before the response as possibly delivered', async () => {
    const hook = await server((req) => req.socket.destroy());
    const result = await post(client(), hook.url);
    expect(result).toMatchObject({ kind: 'failure', stage: 'network', neverSent: false });
    if (result.kind === 'failure')
      expect(result.message).toBe(`connection to 127.0.0.1:${hook.port} closed before the response was complete`);
  });
});
