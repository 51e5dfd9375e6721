import { WebhookClient } from '../../../infra/webhook/client';
import { pingOutcome, pingWebhook } from '../../../infra/webhook/ping';
import { verifySignature } from 'arena-runner/signing';
import { answerJson, closedPort, startServer, type LoopbackServer } from '../../webhook/support/loopback-server';

const secret = 'agsec_ping_secret';
let hook: LoopbackServer | undefined;
let client: WebhookClient;

beforeEach(() => {
  client = new WebhookClient({ allowPrivate: true });
});

afterEach(async () => {
  await client.close();
  await hook?.close();
  hook = undefined;
});

describe('pingWebhook', () => {
  it('passes on any 2xx and sends a signed, prompt-shaped ping', async () => {
    hook = await startServer((_req, res) => {
      res.writeHead(202);
      res.end();
    });
    expect(await pingWebhook(client, `${hook.url}/hook`, secret, 3)).toEqual({ ok: true, error: null });

    const received = await hook.nextRequest();
    expect(JSON.parse(received.body.toString('utf8'))).toEqual({
      prompt_id: 'ping-3',
      prompt: 'ping',
      category: 'ping',
      deadline_seconds: 15,
    });
    expect(received.body.toString('utf8')).toBe(
      '{"prompt_id":"ping-3","prompt":"ping","category":"ping","deadline_seconds":15}',
    );
    expect(received.headers['x-arena-delivery']).toBe('ping-3');
    expect(verifySignature(secret, received.headers, received.body, { requireTimestamp: true })).toBe(true);
  });

  it('reports the status of a non-2xx answer', async () => {
    hook = await startServer(answerJson(500, { error: 'internal' }));
    expect(await pingWebhook(client, hook.url, secret, 1)).toEqual({ ok: false, error: 'webhook answered HTTP 500' });
  });

  it('reports a redirect as not followed', async () => {
    hook = await startServer((_req, res) => {
      res.writeHead(301, { location: 'https://example.com/' });
      res.end();
    });
    expect(await pingWebhook(client, hook.url, secret, 1)).toEqual({
      ok: false,
      error: 'webhook answered a redirect (HTTP 301), which is not followed',
    });
  });

  it('reports a refused connection', async () => {
    const port = await closedPort();
    expect(await pingWebhook(client, `http://127.0.0.1:${port}/`, secret, 1)).toEqual({
      ok: false,
      error: `connection refused by 127.0.0.1:${port}`,
    });
  });

  it('reports a timeout', async () => {
    hook = await startServer(() => {
      /* never answers */
    });
    expect(await pingWebhook(client, hook.url, secret, 1, 250)).toEqual({ ok: false, error: 'timed out after 0.25 s' });
  });

  it('reports a refused private address without contacting it', async () => {
    hook = await startServer(answerJson(200, {}));
    const guarded = new WebhookClient({ allowPrivate: false });
    try {
      expect(await pingWebhook(guarded, `${hook.url}/hook`, secret, 1)).toEqual({
        ok: false,
        error: 'webhook_url points to a private or loopback address (127.0.0.1)',
      });
      expect(hook.requests).toHaveLength(0);
    } finally {
      await guarded.close();
    }
  });
});

describe('pingOutcome', () => {
  it.each([
    [200, true, null],
    [204, true, null],
    [299, true, null],
    [302, false, 'webhook answered a redirect (HTTP 302), which is not followed'],
    [404, false, 'webhook answered HTTP 404'],
    [503, false, 'webhook answered HTTP 503'],
  ])('HTTP %i -> ok %s', (status, ok, error) => {
    expect(pingOutcome({ kind: 'response', status, body: '', sentAt: 1, receivedAt: 2 })).toEqual({ ok, error });
  });
});
