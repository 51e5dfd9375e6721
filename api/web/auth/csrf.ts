/**
 * CSRF protection for the website's forms (@fastify/csrf-protection). The secret sits in a signed
 * HttpOnly cookie, and every token is also bound, by HMAC, to the server-side session's own
 * secret: a token made for one session (or before logging in) fails on any other, and logout
 * voids them all.
 */
import csrfProtection from '@fastify/csrf-protection';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { CSRF_COOKIE, derivedKey, isSecureSite } from './cookies';

declare module 'fastify' {
  interface FastifyReply {
    /** A token for a form's hidden `_csrf` field (or an `x-csrf-token` header); sets the secret cookie when missing. */
    csrfToken: () => string;
  }
}

export interface WebCsrfOptions {
  publicUrl: string;
  /** The service's 32-byte key (`config.encryptionKey`); the token key is derived from it. */
  secretKey: Buffer;
}

/** Before logging in there is no session to bind to; those forms (login, sign-up) share one binding. */
const NO_SESSION = 'no-session';

function sessionBinding(request: FastifyRequest): string {
  return request.webSession?.csrfSecret ?? NO_SESSION;
}

export const webCsrfPlugin = fp<WebCsrfOptions>(
  async (app: FastifyInstance, { publicUrl, secretKey }) => {
    await app.register(csrfProtection, {
      sessionPlugin: '@fastify/cookie',
      cookieKey: CSRF_COOKIE,
      cookieOpts: { path: '/', httpOnly: true, sameSite: 'lax', secure: isSecureSite(publicUrl), signed: true },
      getUserInfo: sessionBinding,
      csrfOpts: { userInfo: true, hmacKey: derivedKey(secretKey, 'csrf-tokens') },
    });
    app.decorateReply('csrfToken', function csrfToken(this: FastifyReply) {
      return this.generateCsrf({ userInfo: sessionBinding(this.request) });
    });
  },
  { name: 'web-csrf', dependencies: ['@fastify/cookie', 'web-session'] },
);
