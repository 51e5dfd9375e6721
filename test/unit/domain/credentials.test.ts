import { randomBytes } from 'node:crypto';
import {
  hashToken,
  looksLikeAgentSecret,
  looksLikeApiKey,
  newAgentSecret,
  newApiKey,
  openSecret,
  sealSecret,
  tokenMatchesHash,
} from '../../../domain/credentials';

describe('API keys and agent secrets', () => {
  it('have the prefix and 43 url-safe base64 characters of 32 random bytes', () => {
    const key = newApiKey();
    expect(key).toMatch(/^arena_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key.slice(6), 'base64url')).toHaveLength(32);
    expect(newAgentSecret()).toMatch(/^agsec_[A-Za-z0-9_-]{43}$/);
    expect(newApiKey()).not.toBe(key);
  });

  it('are recognised by shape only when well formed', () => {
    expect(looksLikeApiKey(newApiKey())).toBe(true);
    expect(looksLikeApiKey(newAgentSecret())).toBe(false);
    expect(looksLikeApiKey('arena_short')).toBe(false);
    expect(looksLikeAgentSecret(newAgentSecret())).toBe(true);
    expect(looksLikeAgentSecret(`agsec_${'a'.repeat(42)}!`)).toBe(false);
  });

  it('hash to SHA-256 hex and match only their own hash', () => {
    const key = newApiKey();
    expect(hashToken(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(tokenMatchesHash(key, hashToken(key))).toBe(true);
    expect(tokenMatchesHash(newApiKey(), hashToken(key))).toBe(false);
    expect(tokenMatchesHash(key, 'abc')).toBe(false);
  });
});

describe('sealed secrets', () => {
  const key = randomBytes(32);

  it('round-trip, and differ each time they are sealed', () => {
    const secret = newAgentSecret();
    const a = sealSecret(secret, key);
    expect(a).not.toContain(secret);
    expect(sealSecret(secret, key)).not.toBe(a);
    expect(openSecret(a, key)).toBe(secret);
  });

  it('refuse to open under another key or after tampering', () => {
    const sealed = sealSecret('agsec_x', key);
    expect(() => openSecret(sealed, randomBytes(32))).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('agsec_y').toString('base64url');
    expect(() => openSecret(parts.join('.'), key)).toThrow();
    expect(() => openSecret('v0.a.b.c', key)).toThrow(/format/);
  });
});
