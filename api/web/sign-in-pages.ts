/** Sign-in pages: log in, sign up and log out, as plain forms (no scripts needed). */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { normaliseUsername } from '../../domain/username';
import { assertNotReserved } from '../../services/account';
import { expectedFailure } from '../errors';
import { logIn, loginRateLimit, OIDC_FAILURES, safeNextPath, signUp, signUpRateLimit } from './auth';
import { sendPage } from './site';
import { clientOrigin } from '../client-address';

const loginForm = z.object({
  email: z.string().max(320).default(''),
  password: z.string().max(200).default(''),
  next: z.string().max(2000).optional(),
});
const signUpForm = z.object({
  email: z.string().max(320).default(''),
  password: z.string().max(200).default(''),
  username: z.string().max(32).default(''),
});

/**
 * What sign-up answers, made or not: the email may already have an account, and no email is
 * sent that could say so privately, so the page says both and the log-in settles it.
 */
const SIGNED_UP =
  'Thank you. If this email is new, your account is ready: sign in below with the password you just chose. ' +
  "If this email already has an account, nothing was changed: sign in with that account's password.";

export interface SignInPagesOptions {
  /** `ARENA_PUBLIC_URL`: `next` must stay on this site. */
  publicUrl: string;
  loginRateLimit: number;
  registerRateLimit: number;
  oidc: boolean;
  /** Operators' usernames: nobody signs up with them. */
  reservedUsernames: readonly string[];
}

export const signInPages: FastifyPluginAsync<SignInPagesOptions> = async (app, opts) => {
  const loginPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { email?: string; next?: string; error?: string; notice?: string; status?: number },
  ) =>
    sendPage(request, reply, {
      title: 'Sign in',
      view: 'login',
      status: data.status,
      data: {
        csrf: reply.csrfToken(),
        email: data.email ?? '',
        next: safeNextPath(data.next, opts.publicUrl),
        error: data.error ?? null,
        notice: data.notice ?? null,
        oidc: opts.oidc,
      },
      markdown: () =>
        '# Sign in\n\nPeople sign in with email and password on this page; programs use an API key (`POST /api/register`).\n',
    });
  const signUpPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    data: { email?: string; username?: string; error?: string; status?: number },
  ) =>
    sendPage(request, reply, {
      title: 'Create an account',
      view: 'signup',
      status: data.status,
      data: {
        csrf: reply.csrfToken(),
        email: data.email ?? '',
        username: data.username ?? '',
        error: data.error ?? null,
      },
      markdown: () =>
        '# Create an account\n\nPeople sign up here with email and password; programs register with `POST /api/register`.\n',
    });

  app.get('/login', async (request, reply) => {
    const query = request.query as { next?: string; error?: unknown };
    // A failed sign-in through the identity provider comes back here; only the arena's own sentences are shown.
    const error = typeof query.error === 'string' && OIDC_FAILURES.has(query.error) ? query.error : undefined;
    return loginPage(request, reply, { next: query.next, error });
  });
  app.post(
    '/login',
    { config: loginRateLimit(opts.loginRateLimit), preHandler: app.csrfProtection },
    async (request, reply) => {
      const parsed = loginForm.safeParse(request.body ?? {});
      if (!parsed.success)
        return loginPage(request, reply, { error: 'the form is incomplete or a field is too long', status: 400 });
      const form = parsed.data;
      try {
        await reply.signInWebUser(await logIn(request.em, form));
      } catch (err) {
        const failure = expectedFailure(err);
        if (!failure) throw err;
        return loginPage(request, reply, {
          email: form.email,
          next: form.next,
          error: failure.detail,
          status: failure.status,
        });
      }
      return reply.redirect(safeNextPath(form.next, opts.publicUrl), 303);
    },
  );

  app.get('/signup', async (request, reply) => signUpPage(request, reply, {}));
  app.post(
    '/signup',
    { config: signUpRateLimit(opts.registerRateLimit), preHandler: app.csrfProtection },
    async (request, reply) => {
      const parsed = signUpForm.safeParse(request.body ?? {});
      if (!parsed.success)
        return signUpPage(request, reply, { error: 'the form is incomplete or a field is too long', status: 400 });
      const form = parsed.data;
      try {
        const username = form.username.trim() ? normaliseUsername(form.username) : undefined;
        if (username) assertNotReserved(username, opts.reservedUsernames);
        const user = await signUp(request.em, {
          email: form.email,
          password: form.password,
          username,
          origin: clientOrigin(request),
        });
        if (user) request.log.info({ userId: user.id }, 'account created on the website');
      } catch (err) {
        const failure = expectedFailure(err);
        if (!failure) throw err;
        return signUpPage(request, reply, {
          email: form.email,
          username: form.username,
          error: failure.detail,
          status: failure.status,
        });
      }
      // The same page whether the account was made or the email already had one (see signUp).
      return loginPage(request, reply, { email: form.email, notice: SIGNED_UP });
    },
  );

  app.post('/logout', { preHandler: app.csrfProtection }, async (_request, reply) => {
    await reply.signOutWebUser();
    return reply.redirect('/', 303);
  });
};
