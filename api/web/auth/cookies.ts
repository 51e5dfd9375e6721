/** The website's cookies: names, attributes, and the keys that sign them, all in one place. */
import { hkdfSync } from 'node:crypto';
import type { CookieSerializeOptions } from '@fastify/cookie';

export const SESSION_COOKIE = 'arena_session';
/** Holds the CSRF secret; the tokens in forms are made from it and bound to the session. */
export const CSRF_COOKIE = 'arena_csrf';
/** State, nonce and PKCE verifier of one identity-provider sign-in, for the ten minutes it may take. */
export const OIDC_COOKIE = 'arena_oidc';

/** Cookies are Secure exactly when the site is served over TLS. */
export function isSecureSite(publicUrl: string): boolean {
  return publicUrl.startsWith('https:');
}

export function webSessionCookieOptions(publicUrl: string, days: number): CookieSerializeOptions {
  return { path: '/', httpOnly: true, sameSite: 'lax', secure: isSecureSite(publicUrl), maxAge: days * 24 * 60 * 60 };
}

/**
 * Keys for cookie signatures and CSRF tokens, derived from the service's 32-byte key (HKDF with
 * a label per use), so no further secret has to be configured and each use has its own key.
 */
export function derivedKey(secretKey: Buffer, purpose: 'cookie-signing' | 'csrf-tokens'): Buffer {
  return Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), `arena web ${purpose}`, 32));
}
