/** API keys, agent secrets and coding sessions' tokens: their formats, hashes, and the at-rest encryption of signing keys. */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_PREFIX = 'arena_';
export const AGENT_SECRET_PREFIX = 'agsec_';
export const SESSION_TOKEN_PREFIX = 'sbx_';

const TOKEN_BODY = /^[A-Za-z0-9_-]{43}$/;

function newToken(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

export const newApiKey = (): string => newToken(API_KEY_PREFIX);
export const newAgentSecret = (): string => newToken(AGENT_SECRET_PREFIX);

/**
 * A coding session's capability token: derived from the service's key and the session's random
 * nonce, so the API and the worker can both hand it out again (a redelivery gets the same token)
 * while only its hash is stored and looked up.
 */
export function sessionToken(key: Buffer, sessionId: number, nonce: string): string {
  return (
    SESSION_TOKEN_PREFIX + createHmac('sha256', key).update(`coding-session:${sessionId}:${nonce}`).digest('base64url')
  );
}

export const newCodingSessionNonce = (): string => randomBytes(24).toString('base64url');

export function looksLikeCodingSessionToken(value: string): boolean {
  return value.startsWith(SESSION_TOKEN_PREFIX) && TOKEN_BODY.test(value.slice(SESSION_TOKEN_PREFIX.length));
}

/** What an account's key list shows of a key: `arena_` and 4 of its 43 random characters, enough to tell keys apart and too few to guess one. */
export function apiKeyPrefix(apiKey: string): string {
  return apiKey.slice(0, API_KEY_PREFIX.length + 4);
}

/** Cheap shape check so malformed tokens never reach the database. */
export function looksLikeApiKey(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX) && TOKEN_BODY.test(value.slice(API_KEY_PREFIX.length));
}

export function looksLikeAgentSecret(value: string): boolean {
  return value.startsWith(AGENT_SECRET_PREFIX) && TOKEN_BODY.test(value.slice(AGENT_SECRET_PREFIX.length));
}

/** Keys and secrets are 256-bit random, so a plain SHA-256 is enough to store them safely. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export function tokenMatchesHash(token: string, hash: string): boolean {
  const a = Buffer.from(hashToken(token), 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

const SEALED_VERSION = 'v1';

/** AES-256-GCM; the output is `v1.<iv>.<tag>.<ciphertext>` in base64url. */
export function sealSecret(plain: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [SEALED_VERSION, iv, tag, ciphertext]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function openSecret(sealed: string, key: Buffer): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== SEALED_VERSION || !iv || !tag || ciphertext === undefined) {
    throw new Error('unrecognised sealed secret format');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
