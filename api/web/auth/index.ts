/**
 * Human sign-in for the website: cookies, form bodies, the server-side session and CSRF tokens
 * in one plugin, plus the account functions and the OpenID Connect routes. Separate from the
 * API's bearer keys: nothing here authenticates an /api request.
 */
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { derivedKey } from './cookies';
import { webCsrfPlugin } from './csrf';
import { webSessionPlugin } from './web-session.plugin';

export interface WebAuthOptions {
  /** `ARENA_PUBLIC_URL`: cookies are Secure when it is https. */
  publicUrl: string;
  /** The service's 32-byte key (`config.encryptionKey`); cookie-signing and CSRF keys are derived from it. */
  secretKey: Buffer;
  /** `config.sessionDays`; 30 when unset. */
  sessionDays?: number;
  /** How often expired sessions are deleted; hourly when unset. */
  sweepExpiredEveryMs?: number;
  /** Now (the app's clock, `AppDeps.clock`); the system clock when unset. */
  clock?: () => Date;
}

/**
 * A form body as fields. Browsers send a textarea's line breaks as CRLF (the HTML standard's form
 * encoding), so every field's line breaks are made LF here: a prompt typed on the site reaches
 * agents as the same text sent through the API. A repeated field is an array, as before.
 */
export function parseForm(body: string): Record<string, string | string[]> {
  const form = Object.create(null) as Record<string, string | string[]>;
  for (const [key, raw] of new URLSearchParams(body)) {
    const value = raw.replace(/\r\n?/g, '\n');
    const seen = form[key];
    form[key] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return form;
}

export const webAuthPlugin = fp<WebAuthOptions>(
  async (app: FastifyInstance, { publicUrl, secretKey, sessionDays, sweepExpiredEveryMs, clock }) => {
    await app.register(cookie, { secret: derivedKey(secretKey, 'cookie-signing').toString('base64url') });
    await app.register(formbody, { parser: parseForm });
    await app.register(webSessionPlugin, { publicUrl, sessionDays, sweepExpiredEveryMs, clock });
    await app.register(webCsrfPlugin, { publicUrl, secretKey });
  },
  { name: 'web-auth', dependencies: ['orm'] },
);

export {
  changePassword,
  hasPassword,
  logIn,
  normaliseEmail,
  setPassword,
  signUp,
  WRONG_LOGIN,
  type LogInInput,
  type SignUpInput,
} from '../../../services/sign-in';
export { CSRF_COOKIE, SESSION_COOKIE } from './cookies';
export { accountForIdentity, identitiesOf, linkIdentity } from '../../../services/identities';
export { OIDC_FAILURES, oidcRedirectUri, oidcRoutes, type OidcRoutesOptions } from './oidc.routes';
export { PASSWORD_RULE } from '../../../services/passwords';
export { loginRateLimit, signUpRateLimit } from './rate-limits';
export {
  deleteExpiredWebSessions,
  endAllWebSessions,
  endWebSession,
  findWebSession,
  startWebSession,
} from '../../../services/web-sessions';
export { safeNextPath, webSessionPlugin } from './web-session.plugin';
