/**
 * Behind a proxy the client address comes from X-Forwarded-For, but only as far as the trusted
 * proxies wrote it: the entries a client writes itself (the left-most) must not choose the address
 * that per-address limits count.
 */
import { ConfigError, loadConfig } from '../../infra/config';
import { startTestApp, type TestApp } from '../support/test-app';

describe('ARENA_TRUST_PROXY', () => {
  it('takes a hop count, or the proxies’ addresses and ranges, and nothing else', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ ARENA_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ ARENA_TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ ARENA_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ ARENA_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ ARENA_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,fd00::/8' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      'fd00::/8',
    ]);
    expect(loadConfig({ ARENA_TRUST_PROXY: 'loopback,uniquelocal' }).trustProxy).toEqual(['loopback', 'uniquelocal']);
  });

  it.each([
    ['true', /ARENA_TRUST_PROXY: .*give the number of proxies in front of the API \(1\) or their addresses/],
    ['yes', /give the number of proxies/],
    ['10.0.0.0/33', /ARENA_TRUST_PROXY: "10.0.0.0\/33" is not an address, a range \(10.0.0.0\/8\) or a hop count/],
    ['proxy.internal', /"proxy.internal" is not an address/],
    ['1.5', /"1.5" is not an address/],
  ])('refuses ARENA_TRUST_PROXY=%s with a sentence saying what to give', (value, message) => {
    expect(() => loadConfig({ ARENA_TRUST_PROXY: value })).toThrow(ConfigError);
    expect(() => loadConfig({ ARENA_TRUST_PROXY: value })).toThrow(message);
  });
});

describe('registrations behind a proxy', () => {
  const register = (t: TestApp, forwardedFor: string, proxy = '10.0.0.5') =>
    t.app.inject({
      method: 'POST',
      url: '/api/register',
      remoteAddress: proxy,
      headers: { 'x-forwarded-for': forwardedFor },
    });

  it('with one proxy (ARENA_TRUST_PROXY=1), counts the address the proxy saw, whatever the client wrote to the left of it', async () => {
    const t = await startTestApp({ ARENA_TRUST_PROXY: '1', ARENA_REGISTER_RATE_LIMIT: '20' });
    try {
      for (let i = 0; i < 20; i++) expect((await register(t, `192.0.2.${i}, 198.51.100.7`)).statusCode).toBe(201);
      expect((await register(t, '192.0.2.99, 198.51.100.7')).statusCode).toBe(429);
      // The probe of the review: a new left-most entry used to be a new client.
      expect((await register(t, '203.0.113.1, 198.51.100.7')).statusCode).toBe(429);
      expect((await register(t, '198.51.100.7')).statusCode).toBe(429);
      expect((await register(t, '192.0.2.1, 198.51.100.8')).statusCode).toBe(201);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('with the proxies’ ranges, takes the right-most address outside them', async () => {
    const t = await startTestApp({ ARENA_TRUST_PROXY: '10.0.0.0/8', ARENA_REGISTER_RATE_LIMIT: '2' });
    try {
      // A CDN (10.1.2.3) and the load balancer (10.0.0.5, the socket) in front of the API.
      for (let i = 0; i < 2; i++)
        expect((await register(t, `192.0.2.${i}, 198.51.100.9, 10.1.2.3`)).statusCode).toBe(201);
      expect((await register(t, '203.0.113.2, 198.51.100.9, 10.1.2.3')).statusCode).toBe(429);
      // A client reaching the API directly is not a proxy: what it writes is ignored.
      const direct = (forwardedFor: string) => register(t, forwardedFor, '198.51.100.20');
      for (let i = 0; i < 2; i++) expect((await direct(`192.0.2.${i + 10}`)).statusCode).toBe(201);
      expect((await direct('192.0.2.30')).statusCode).toBe(429);
    } finally {
      await t.close();
    }
  }, 60_000);
});
