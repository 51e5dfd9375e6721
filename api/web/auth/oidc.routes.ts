/**
 * Website sign-in through the configured OpenID Connect provider: GET /auth/oidc/start, and
 * POST /auth/oidc/link for a signed-in person adding the provider to their account; both come
 * back to GET /auth/oidc/callback.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { OidcSettings } from '../../../infra/config';
import { ApiError, expectedFailure } from '../../errors';
import { isSecureSite, OIDC_COOKIE } from './cookies';
import { accountForIdentity, EMAIL_IN_USE, LINKED_ELSEWHERE, linkIdentity } from '../../../services/identities';
import {
  OidcRelyingParty,
  ProviderUnavailableError,
  type OpenidClientLoader,
  type ProviderIdentity,
} from './oidc-client';
import { safeNextPath } from './web-session.plugin';
import { clientOrigin } from '../../client-address';

export const OIDC_CALLBACK_PATH = '/auth/oidc/callback';
const PENDING_SECONDS = 600;

const UNAVAILABLE = 'the identity provider is unavailable; try again shortly';
const EXPIRED = 'this sign-in expired or was started in another browser; start again';
const REFUSED = 'the identity provider did not sign you in';
const NOT_COMPLETED = 'the sign-in could not be completed; start again';
const OTHER_SIGN_IN = 'this link was started in another sign-in; start again from your account page';

/**
 * Every sentence a failed sign-in or link is sent back with. The pages show `?error=` only when it
 * is one of these, so a crafted link cannot put words of its own on the arena's pages.
 */
export const OIDC_FAILURES: ReadonlySet<string> = new Set([
  UNAVAILABLE,
  EXPIRED,
  REFUSED,
  NOT_COMPLETED,
  OTHER_SIGN_IN,
  EMAIL_IN_USE,
  LINKED_ELSEWHERE,
]);

export interface OidcRoutesOptions {
  /** `config.oidc`; when unset the plugin adds no routes. */
  oidc: OidcSettings | undefined;
  /** `ARENA_PUBLIC_URL`: the redirect URI registered at the provider is `<publicUrl>/auth/oidc/callback`. */
  publicUrl: string;
  /** Where a failed sign-in is sent, with `?error=<sentence>`; unset, the failure is thrown as an ApiError. */
  failureRedirect?: string;
  /** The account page: a link ends there, with `?done=linked` or `?error=<sentence>`. */
  accountPage?: string;
  /** How openid-client (ES modules only) is loaded; the default is a native import(). */
  loadClient?: OpenidClientLoader;
  /** Now: when a pending sign-in (10 minutes) has expired. */
  clock?: () => Date;
}

const pendingCookie = z.object({
  state: z.string(),
  nonce: z.string(),
  codeVerifier: z.string(),
  next: z.string(),
  expires: z.number(),
  /** Set when a signed-in person links the provider: their account id, which must still be signed in at the callback. */
  linkTo: z.number().int().optional(),
});
type PendingCookie = z.infer<typeof pendingCookie>;
const callbackQuery = z.object({
  error: z.string().max(200).optional(),
  error_description: z.string().max(500).optional(),
});

export function oidcRedirectUri(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}${OIDC_CALLBACK_PATH}`;
}

export const oidcRoutes: FastifyPluginAsync<OidcRoutesOptions> = async (app, opts) => {
  if (!opts.oidc) return;
  const clock = opts.clock ?? (() => new Date());
  if (!app.hasReplyDecorator('signInWebUser') || !app.hasReplyDecorator('unsignCookie')) {
    throw new Error('oidcRoutes needs webAuthPlugin registered before it');
  }
  const relyingParty = new OidcRelyingParty(opts.oidc, oidcRedirectUri(opts.publicUrl), opts.loadClient);
  const cookieOptions = {
    path: '/auth/oidc',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: isSecureSite(opts.publicUrl),
    signed: true,
  };
  const accountPage = opts.accountPage ?? '/account';

  function fail(reply: FastifyReply, status: number, message: string, to = opts.failureRedirect): FastifyReply {
    if (!to) throw new ApiError(status, message);
    return reply.redirect(`${to}?error=${encodeURIComponent(message)}`, 303);
  }

  function readPending(reply: FastifyReply, raw: string | undefined): PendingCookie | null {
    const unsigned = raw ? reply.unsignCookie(raw) : null;
    if (!unsigned?.valid || unsigned.value === null) return null;
    try {
      const parsed = pendingCookie.safeParse(JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')));
      return parsed.success && parsed.data.expires > clock().getTime() ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /** Leaves for the provider, remembering (in a signed cookie) what the callback must check and where to go next. */
  async function leaveForProvider(
    request: FastifyRequest,
    reply: FastifyReply,
    next: string,
    linkTo?: number,
  ): Promise<FastifyReply> {
    let begun;
    try {
      begun = await relyingParty.begin();
    } catch (err) {
      if (!(err instanceof ProviderUnavailableError)) throw err;
      request.log.error({ err }, 'identity provider discovery failed');
      return fail(reply, 503, UNAVAILABLE, linkTo === undefined ? opts.failureRedirect : accountPage);
    }
    const pending: PendingCookie = {
      ...begun.pending,
      next,
      expires: clock().getTime() + PENDING_SECONDS * 1000,
      linkTo,
    };
    reply.setCookie(OIDC_COOKIE, Buffer.from(JSON.stringify(pending)).toString('base64url'), {
      ...cookieOptions,
      maxAge: PENDING_SECONDS,
    });
    return reply.redirect(begun.url, 303);
  }

  app.get('/auth/oidc/start', async (request, reply) =>
    leaveForProvider(request, reply, safeNextPath((request.query as { next?: unknown }).next, opts.publicUrl)),
  );

  // A POST with a CSRF token: no other site can make a signed-in browser start linking.
  app.post(
    '/auth/oidc/link',
    { onRequest: app.requireWebUser, preHandler: app.csrfProtection },
    async (request, reply) => leaveForProvider(request, reply, `${accountPage}?done=linked`, request.webUser!.id),
  );

  app.get(OIDC_CALLBACK_PATH, async (request, reply) => {
    const pending = readPending(reply, request.cookies[OIDC_COOKIE]);
    // One use only, whatever happens next.
    reply.clearCookie(OIDC_COOKIE, cookieOptions);
    if (!pending) return fail(reply, 400, EXPIRED);
    const failTo = pending.linkTo === undefined ? opts.failureRedirect : accountPage;
    const query = callbackQuery.safeParse(request.query);
    if (query.success && query.data.error) {
      request.log.info(
        { error: query.data.error, description: query.data.error_description },
        'the identity provider refused the sign-in',
      );
      return fail(reply, 400, REFUSED, failTo);
    }
    let identity: ProviderIdentity;
    try {
      identity = await relyingParty.finish(new URL(request.url, opts.publicUrl), pending);
    } catch (err) {
      if (err instanceof ProviderUnavailableError) {
        request.log.error({ err }, 'identity provider discovery failed');
        return fail(reply, 503, UNAVAILABLE, failTo);
      }
      request.log.warn({ err }, 'identity provider callback rejected');
      return fail(reply, 400, NOT_COMPLETED, failTo);
    }
    try {
      if (pending.linkTo !== undefined) {
        // The person who started the link must be the one signed in now.
        if (request.webUser?.id !== pending.linkTo) return fail(reply, 409, OTHER_SIGN_IN, failTo);
        await linkIdentity(request.em, request.webUser, identity);
        request.log.info({ userId: request.webUser.id }, 'identity provider linked to an account');
      } else {
        const user = await accountForIdentity(request.em, identity, clientOrigin(request));
        await reply.signInWebUser(user);
        request.log.info({ userId: user.id }, 'signed in through the identity provider');
      }
    } catch (err) {
      const failure = expectedFailure(err);
      if (!failure) throw err;
      return fail(reply, failure.status, failure.detail, failTo);
    }
    return reply.redirect(safeNextPath(pending.next, opts.publicUrl), 303);
  });
};
