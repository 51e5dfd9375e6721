/**
 * What a server listening on the network must not hand out by default: private webhooks (a port
 * scanner for any account) and /metrics. Both are fine on loopback, where only this machine can ask.
 */
import { Writable } from 'node:stream';
import { loadConfig, startupWarnings } from '../../infra/config';
import { serveMetrics } from '../../worker/metrics-server';
import { startTestApp } from '../support/test-app';

const TOKEN = 'a-long-scrape-token-for-tests';

describe('private webhooks', () => {
  it('are allowed by default only on the embedded stack listening on loopback', () => {
    for (const host of ['127.0.0.1', 'localhost', '::1', '[::1]', '127.0.0.2'])
      expect(loadConfig({ HOST: host }).allowPrivateWebhooks).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.20', 'arena.example'])
      expect(loadConfig({ HOST: host }).allowPrivateWebhooks).toBe(false);
    expect(loadConfig({ HOST: '127.0.0.1', DATABASE_URL: 'postgres://u@db/arena' }).allowPrivateWebhooks).toBe(false);
    // Saying so is still allowed, and then warned about.
    expect(loadConfig({ HOST: '0.0.0.0', ARENA_ALLOW_PRIVATE_WEBHOOKS: 'true' }).allowPrivateWebhooks).toBe(true);
  });

  it('are warned about whenever they are allowed', () => {
    expect(
      startupWarnings(
        loadConfig({ HOST: '0.0.0.0', ARENA_ALLOW_PRIVATE_WEBHOOKS: 'true', ARENA_METRICS_TOKEN: TOKEN }),
      ),
    ).toEqual([
      expect.stringMatching(
        /^ARENA_ALLOW_PRIVATE_WEBHOOKS is true: webhooks may reach private, loopback and link-local addresses/,
      ),
    ]);
    expect(startupWarnings(loadConfig({}))).toEqual([expect.stringMatching(/^ARENA_ALLOW_PRIVATE_WEBHOOKS is true/)]);
    expect(startupWarnings(loadConfig({ DATABASE_URL: 'postgres://u@db/arena' }))).toEqual([]);
  });

  it('are warned about in the log when the API starts', async () => {
    const lines: string[] = [];
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    const t = await startTestApp({ LOG_LEVEL: 'warn', ARENA_ALLOW_PRIVATE_WEBHOOKS: 'true' }, { logStream });
    await t.close();
    const warnings = lines.map((line) => JSON.parse(line)).filter((entry) => entry.level === 40);
    expect(warnings.map((w) => w.msg)).toContainEqual(expect.stringMatching(/^ARENA_ALLOW_PRIVATE_WEBHOOKS is true/));
  }, 60_000);
});

describe('/metrics', () => {
  it('is closed when the API listens beyond loopback without ARENA_METRICS_TOKEN, and says why', async () => {
    const t = await startTestApp({ HOST: '0.0.0.0' });
    try {
      const res = await t.app.inject({ method: 'GET', url: '/metrics' });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        detail:
          'metrics are not served to the network without a token: set ARENA_METRICS_TOKEN and send Authorization: Bearer <token>',
      });
      expect(startupWarnings(t.config)).toContainEqual(
        expect.stringMatching(
          /^\/metrics is closed: HOST=0\.0\.0\.0 is not loopback and ARENA_METRICS_TOKEN is not set/,
        ),
      );
    } finally {
      await t.close();
    }
  }, 60_000);

  it('is served with the token beyond loopback, and without one on loopback', async () => {
    const t = await startTestApp({ HOST: '0.0.0.0', ARENA_METRICS_TOKEN: TOKEN });
    try {
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(401);
      expect(
        (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } }))
          .statusCode,
      ).toBe(200);
    } finally {
      await t.close();
    }
    const local = await startTestApp({ HOST: '127.0.0.1' });
    try {
      expect((await local.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await local.close();
    }
  }, 60_000);

  it('of a worker is closed the same way', async () => {
    const open = await serveMetrics(0, '0.0.0.0');
    try {
      const res = await fetch(open.url.replace('0.0.0.0', '127.0.0.1'));
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toMatch(
        /^metrics are not served to the network without a token/,
      );
    } finally {
      await open.close();
    }
    const withToken = await serveMetrics(0, '0.0.0.0', TOKEN);
    try {
      const url = withToken.url.replace('0.0.0.0', '127.0.0.1');
      expect((await fetch(url)).status).toBe(401);
      expect((await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    } finally {
      await withToken.close();
    }
  });
});
