import {
  describeConnectFailure,
  describeExchangeFailure,
  formatBytes,
  formatSeconds,
} from '../../../infra/webhook/failure';
import { guardedLookup, PrivateAddressRefusal } from '../../../infra/webhook/guarded-lookup';

const target = { hostname: 'agent.example', address: 'agent.example:443', https: true };

function coded(code: string, message = code, extra: Record<string, unknown> = {}): Error {
  return Object.assign(new Error(message), { code }, extra);
}

describe('describeConnectFailure (nothing was sent)', () => {
  it.each([
    [coded('ENOTFOUND'), 'dns', 'DNS lookup failed for agent.example'],
    [coded('EAI_AGAIN'), 'dns', 'DNS lookup failed for agent.example'],
    [coded('ECONNREFUSED'), 'refused', 'connection refused by agent.example:443'],
    [coded('UND_ERR_CONNECT_TIMEOUT'), 'timeout', 'timed out after 10 s connecting to agent.example:443'],
    [coded('ETIMEDOUT'), 'timeout', 'timed out connecting to agent.example:443'],
    [
      coded('DEPTH_ZERO_SELF_SIGNED_CERT', 'self-signed certificate'),
      'tls',
      'TLS handshake failed: self-signed certificate',
    ],
    [coded('CERT_HAS_EXPIRED', 'certificate has expired'), 'tls', 'TLS handshake failed: certificate has expired'],
    [
      coded('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"),
      'tls',
      "TLS handshake failed: Hostname/IP does not match certificate's altnames",
    ],
    [coded('EHOSTUNREACH'), 'connect', 'could not connect to agent.example:443 (EHOSTUNREACH)'],
    [coded('UND_ERR_DESTROYED'), 'network', 'webhook client is closed'],
    [
      new PrivateAddressRefusal('agent.example', '10.0.0.1'),
      'private-address',
      'refused: agent.example resolves to a private address (10.0.0.1)',
    ],
    [
      new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]),
      'refused',
      'connection refused by agent.example:443',
    ],
  ])('%s', (err, stage, message) => {
    expect(describeConnectFailure(err, target, 10_000)).toEqual({ stage, message });
  });

  it('does not call a plain-HTTP reset a TLS failure', () => {
    expect(describeConnectFailure(coded('ECONNRESET'), { ...target, https: false }, 10_000).stage).toBe('connect');
  });
});

describe('describeExchangeFailure (the request may have arrived)', () => {
  it.each([
    [coded('UND_ERR_HEADERS_TIMEOUT'), 'timeout', 'timed out after 15 s'],
    [coded('UND_ERR_BODY_TIMEOUT'), 'timeout', 'timed out after 15 s'],
    [
      coded('UND_ERR_SOCKET', 'other side closed'),
      'network',
      'connection to agent.example:443 closed before the response was complete',
    ],
    [coded('ECONNRESET'), 'network', 'connection to agent.example:443 closed before the response was complete'],
    [coded('HPE_INVALID_CONSTANT'), 'network', 'webhook sent an invalid HTTP response (HPE_INVALID_CONSTANT)'],
    [coded('UND_ERR_RES_CONTENT_LENGTH_MISMATCH'), 'network', 'webhook response body did not match its Content-Length'],
  ])('%s', (err, stage, message) => {
    expect(describeExchangeFailure(err, target, 15_000)).toEqual({ stage, message });
  });
});

describe('formats', () => {
  it.each([
    [15_000, '15 s'],
    [1500, '1.5 s'],
    [250, '0.25 s'],
  ])('%i ms is %s', (ms, text) => {
    expect(formatSeconds(ms)).toBe(text);
  });
  it.each([
    [1024 * 1024, '1 MiB'],
    [2048, '2 KiB'],
    [1000, '1000 bytes'],
  ])('%i bytes is %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});

describe('guardedLookup', () => {
  function lookup(allowPrivate: boolean, hostname: string, all: boolean) {
    return new Promise<{ err: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) =>
      guardedLookup(allowPrivate)(hostname, { all }, (err, address, family) => resolve({ err, address, family })),
    );
  }

  it('refuses a name whose answer is inward', async () => {
    const { err } = await lookup(false, 'localhost', true);
    expect(err).toBeInstanceOf(PrivateAddressRefusal);
    expect(err?.message).toMatch(/^refused: localhost resolves to a private address \((127\.0\.0\.1|::1)\)$/);
  });

  it('answers in the shape net asked for when private targets are allowed', async () => {
    const many = await lookup(true, 'localhost', true);
    expect(many.err).toBeNull();
    expect(many.address).toEqual(expect.arrayContaining([expect.objectContaining({ family: expect.any(Number) })]));
    const one = await lookup(true, 'localhost', false);
    expect(one.err).toBeNull();
    expect(typeof one.address).toBe('string');
    expect([4, 6]).toContain(one.family);
  });

  it('passes DNS errors through', async () => {
    const { err } = await lookup(false, 'nosuch.invalid', true);
    expect(err?.code).toMatch(/^(ENOTFOUND|EAI_AGAIN)$/);
  });
});
