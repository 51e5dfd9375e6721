/**
 * Push signing: the HMAC headers on every webhook POST and the check agents run on them. The arena's
 * webhook client signs with this module (`arena-runner/signing`), so sender and checker cannot drift.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'X-Arena-Signature';
export const DELIVERY_HEADER = 'X-Arena-Delivery';
export const TIMESTAMP_HEADER = 'X-Arena-Timestamp';
export const TIMESTAMPED_SIGNATURE_HEADER = 'X-Arena-Signature-Timestamped';

const DEFAULT_TOLERANCE_SECONDS = 300;

type RawBody = string | Buffer;

// A string body is signed as its UTF-8 bytes, which are exactly the bytes the client sends;
// that is what keeps `hmac.new(secret.encode(), body, sha256)` verifiers working.
function bodyBytes(body: RawBody): Buffer {
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

export function signBody(secret: string, body: string | Buffer): string {
  return createHmac('sha256', secret).update(bodyBytes(body)).digest('hex');
}

export function signTimestamped(secret: string, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(bodyBytes(body)).digest('hex');
}

export function signatureHeaders(
  secret: string,
  body: string | Buffer,
  opts: { deliveryId: string; timestamp: number },
): Record<string, string> {
  const timestamp = Math.floor(opts.timestamp);
  return {
    [SIGNATURE_HEADER]: signBody(secret, body),
    [DELIVERY_HEADER]: opts.deliveryId,
    [TIMESTAMP_HEADER]: String(timestamp),
    [TIMESTAMPED_SIGNATURE_HEADER]: signTimestamped(secret, timestamp, body),
  };
}

type IncomingHeaders = Record<string, string | string[] | undefined>;

// Frameworks hand headers over in every casing (Node lowercases, others keep the wire form).
function headerValue(headers: IncomingHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

// Compares hex digests without leaking, through timing, how much of a forged one was right.
function sameDigest(expectedHex: string, receivedHex: string | undefined): boolean {
  if (receivedHex === undefined) return false;
  const expected = Buffer.from(expectedHex, 'utf8');
  const received = Buffer.from(receivedHex.trim().toLowerCase(), 'utf8');
  if (expected.length !== received.length) return false;
  return timingSafeEqual(expected, received);
}

export function verifySignature(
  secret: string,
  headers: Record<string, string | string[] | undefined>,
  rawBody: string | Buffer,
  opts: { requireTimestamp?: boolean; toleranceSeconds?: number; now?: number } = {},
): boolean {
  if (!sameDigest(signBody(secret, rawBody), headerValue(headers, SIGNATURE_HEADER))) return false;
  if (!opts.requireTimestamp) return true;

  const rawTimestamp = headerValue(headers, TIMESTAMP_HEADER)?.trim();
  if (rawTimestamp === undefined || !/^\d{1,12}$/.test(rawTimestamp)) return false;
  const timestamp = Number(rawTimestamp);
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(now - timestamp) > tolerance) return false;

  return sameDigest(signTimestamped(secret, timestamp, rawBody), headerValue(headers, TIMESTAMPED_SIGNATURE_HEADER));
}
