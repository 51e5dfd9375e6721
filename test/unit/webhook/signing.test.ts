import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { WebhookClient } from '../../../infra/webhook/client';
import { signatureHeaders, signBody, signTimestamped, verifySignature } from 'arena-runner/signing';
import { answerJson, startServer } from '../../webhook/support/loopback-server';

const secret = 'agsec_k3Y-example_secret_with_ünïcode';
// Non-ASCII text, so a mismatch between characters and bytes would show.
const body = JSON.stringify({
  prompt_id: 'p-1',
  prompt: 'Résumé in 3 words — naïve? 🚀',
  category: 'writing',
  deadline_seconds: 300,
});

function pythonHmac(key: string, bytes: Buffer, prefix = ''): string {
  const script = [
    'import hashlib, hmac, sys',
    'body = sys.argv[2].encode() + sys.stdin.buffer.read()',
    'print(hmac.new(sys.argv[1].encode(), body, hashlib.sha256).hexdigest())',
  ].join('\n');
  return execFileSync('python3', ['-c', script, key, prefix], { input: bytes }).toString().trim();
}

describe('signBody / signTimestamped', () => {
  it('is hex HMAC-SHA256 of the raw body bytes', () => {
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(body, 'utf8')).digest('hex');
    expect(signBody(secret, body)).toBe(expected);
    expect(signBody(secret, Buffer.from(body, 'utf8'))).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{64}$/);
  });

  it('signs "<timestamp>." followed by the body for the timestamped form', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`, 'utf8').digest('hex');
    expect(signTimestamped(secret, 1700000000, body)).toBe(expected);
  });

  it('puts all four headers on a delivery', () => {
    const headers = signatureHeaders(secret, body, { deliveryId: 'main-230', timestamp: 1700000000 });
    expect(headers).toEqual({
      'X-Arena-Signature': signBody(secret, body),
      'X-Arena-Delivery': 'main-230',
      'X-Arena-Timestamp': '1700000000',
      'X-Arena-Signature-Timestamped': signTimestamped(secret, 1700000000, body),
    });
  });
});

describe('signatures on the wire', () => {
  it('match what a Python verifier computes over the exact bytes received', async () => {
    const server = await startServer(answerJson(200, { response: 'ok' }));
    const client = new WebhookClient({ allowPrivate: true });
    try {
      const result = await client.post({
        url: `${server.url}/hook`,
        body,
        secret,
        deliveryId: 'gym-17',
        timeoutMs: 5000,
      });
      expect(result.kind).toBe('response');
      const received = await server.nextRequest();

      expect(received.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
      expect(received.headers['x-arena-signature']).toBe(pythonHmac(secret, received.body));
      const timestamp = received.headers['x-arena-timestamp'] as string;
      expect(received.headers['x-arena-signature-timestamped']).toBe(
        pythonHmac(secret, received.body, `${timestamp}.`),
      );
      expect(received.headers['x-arena-signature']).toBe(
        createHmac('sha256', secret).update(received.body).digest('hex'),
      );
      expect(verifySignature(secret, received.headers, received.body, { requireTimestamp: true })).toBe(true);
    } finally {
      await client.close();
      await server.close();
    }
  });
});

describe('verifySignature', () => {
  const now = 1_700_000_000;
  const headers = signatureHeaders(secret, body, { deliveryId: 'main-1', timestamp: now });

  it('accepts a genuine delivery, whatever the header casing', () => {
    expect(verifySignature(secret, headers, body)).toBe(true);
    const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verifySignature(secret, lower, Buffer.from(body), { requireTimestamp: true, now })).toBe(true);
    const asArrays = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
    expect(verifySignature(secret, asArrays, body, { requireTimestamp: true, now })).toBe(true);
  });

  it('rejects a tampered body', () => {
    expect(verifySignature(secret, headers, body.replace('3 words', '4 words'))).toBe(false);
    expect(verifySignature(secret, headers, `${body} `)).toBe(false);
  });

  it('rejects the wrong secret', () => {
    expect(verifySignature('agsec_someone_else', headers, body)).toBe(false);
  });

  it('rejects missing or malformed signatures without throwing', () => {
    expect(verifySignature(secret, {}, body)).toBe(false);
    expect(verifySignature(secret, { 'x-arena-signature': 'abc' }, body)).toBe(false);
    expect(verifySignature(secret, { 'x-arena-signature': 'z'.repeat(64) }, body)).toBe(false);
  });

  it('with requireTimestamp, rejects a stale or future timestamp beyond the tolerance', () => {
    expect(verifySignature(secret, headers, body, { requireTimestamp: true, now: now + 300 })).toBe(true);
    expect(verifySignature(secret, headers, body, { requireTimestamp: true, now: now + 301 })).toBe(false);
    expect(verifySignature(secret, headers, body, { requireTimestamp: true, now: now - 301 })).toBe(false);
    expect(
      verifySignature(secret, headers, body, { requireTimestamp: true, now: now + 1000, toleranceSeconds: 1000 }),
    ).toBe(true);
    // Without requireTimestamp only the body signature counts, as for the original service's verifiers.
    expect(verifySignature(secret, headers, body, { now: now + 10_000 })).toBe(true);
  });

  it('with requireTimestamp, rejects a timestamp that was changed to pass the freshness check', () => {
    const replayed = { ...headers, 'X-Arena-Timestamp': String(now + 3600) };
    expect(verifySignature(secret, replayed, body, { requireTimestamp: true, now: now + 3600 })).toBe(false);
    const missing = { ...headers, 'X-Arena-Signature-Timestamped': undefined };
    expect(verifySignature(secret, missing, body, { requireTimestamp: true, now })).toBe(false);
    const garbage = { ...headers, 'X-Arena-Timestamp': 'yesterday' };
    expect(verifySignature(secret, garbage, body, { requireTimestamp: true, now })).toBe(false);
  });
});
