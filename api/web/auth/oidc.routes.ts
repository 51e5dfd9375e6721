/** GET /auth/oidc/start and /auth/oidc/callback: website sign-in through the configured OpenID Connect provider. */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { z } from 'zod';
import type { OidcSettings } from '../../../infra/config';
import { ApiError } from '../../errors';
import { isSecureSite, OIDC_COOKIE } from './cookies';
import { accountForIdentity } from './identities';
import { OidcRelyingParty, ProviderUnavailableError, type OpenidClientLoader, type PendingSignIn } from './oidc-client';
import { safeNextPath } from './web-session.plugin';

export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';
const PENDING_SECONDS = 600;

export interface OidcRoutesOptions {
  /** `config.oidc`; when unset the plugin adds no routes. */
  oidc: OidcSettings | undefined;
  /** `ARENA_PUBLIC_URL`: the redirect URI registered at the provider is `<publicUrl>/auth/oidc/callback`. */
  publicUrl: string;
  /** Where a failed sign-in is sent, with `?error=<sentence>`; unset, the failure is thrown as an ApiError. */
  failureRedirect?: string;
  /** How openid-client (ES modules only) is loaded; the default is a native import(). */
  loadClient?: OpenidClientLoader;
}

const pendingCookie = z.object({ state: z.string(), nonce: z.string(), codeVerifier: z.string(), next: z.string(), expires: z.number() });
type PendingCookie = z.infer<typeof pendingCookie>;
const callbackQuery = z.object({ error: z.string().max(200).optional(), error_description: z.string().max(500).optional() });

export function oidcRedirectUri(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${OIDC_CALLBACK_PATH}`;
}

export const oidcRoutes: FastifyPluginAsync<OidcRoutesOptions> = async (app, opts) => {
  if (!opts.oidc) return;
  if (!app.hasReplyDecorator('signInWebUser') || !app.hasReplyDecorator('unsignCookie')) {
    throw new Error('oidcRoutes needs webAuthPlugin registered before it');
  }
  const relyingParty = new OidcRelyingParty(opts.oidc, oidcRedirectUri(opts.publicUrl), opts.loadClient);
  const cookieOptions = { path: '/auth/oidc', httpOnly: true, sameSite: 'lax' as const, secure: isSecureSite(opts.publicUrl), signed: true };

  function fail(reply: FastifyReply, status: number, message: string): FastifyReply {
    if (!opts.failureRedirect) throw new ApiError(status, message);
    return reply.redirect(`${opts.failureRedirect}?error=${encodeURIComponent(message)}`, 303);
  }

  function readPending(reply: FastifyReply, raw: string | undefined): PendingCookie | null {
    const unsigned = raw ? reply.unsignCookie(raw) : null;
    if (!unsigned?.valid || unsigned.value === null) return null;
    try {
      const parsed = pendingCookie.safeParse(JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')));
      return parsed.success && parsed.data.expires > Date.now() ? parsed.data : null;
    } catch {
      return null;
    }
  }

  app.get('/auth/oidc/start', async (request, reply) => {
    let begun: { url: string; pending: PendingSignIn };
    try {
      begun = await relyingParty.begin();
    } catch (err) {
      if (!(err instanceof ProviderUnavailableError)) throw err;
      request.log.error({ err }, 'identity provider discovery failed');
      return fail(reply, 503, 'the identity provider is unavailable; try again shortly');
    }
    const pending: PendingCookie = {
      ...begun.pending,
      next: safeNextPath((request.query as { next?: unknown }).next),
      expires: Date.now() + PENDING_SECONDS * 1000,
    };
    reply.setCookie(OIDC_COOKIE, Buffer.from(JSON.stringify(pending)).toString('base64url'), { ...cookieOptions, maxAge: PENDING_SECONDS });
    return reply.redirect(begun.url, 303);
  });

  app.get(OIDC_CALLBACK_PATH, async (request, reply) => {
    const pending = readPending(reply, request.cookies[OIDC_COOKIE]);
    // One use only, whatever happens next.
    reply.clearCookie(OIDC_COOKIE, cookieOptions);
    if (!pending) return fail(reply, 400, 'this sign-in expired or was started in another browser; start again');
    const query = callbackQuery.safeParse(request.query);
    if (query.success && query.data.error) {
      return fail(reply, 400, `the identity provider did not sign you in: ${query.data.error_description ?? query.data.error}`);
    }
    let identity;
    try {
      identity = await relyingParty.finish(new URL(request.url, opts.publicUrl), pending);
    } catch (err) {
      if (err instanceof ProviderUnavailableError) {
        request.log.error({ err }, 'identity provider discovery failed');
        return fail(reply, 503, 'the identity provider is unavailable; try again shortly');
      }
      request.log.warn({ err }, 'identity provider callback rejected');
      return fail(reply, 400, 'the sign-in could not be completed; start again');
    }
    const user = await accountForIdentity(request.em, identity, request.ip);
    await reply.signInWebUser(user);
    request.log.info({ userId: user.id }, 'signed in through the identity provider');
    return reply.redirect(pending.next, 303);
  });
};
