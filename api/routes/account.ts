/** GET and PATCH /api/account: the caller's own account. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { editAccount } from '../../services/account';
import { agentsOf } from '../../services/agents';
import { endAllWebSessions } from '../../services/web-sessions';
import { putPassword } from '../../services/sign-in';
import { accountBudget, perAccount } from '../plugins/rate-limits';
import { account, accountPatch, passwordPut, passwordSet } from '../schemas/account';
import { errors } from '../schemas/common';
import { accountJson } from '../json/accounts';

/** Email changes per account per hour: a taken email answers 409, so each try tells something. */
export const EMAIL_CHANGES_PER_HOUR = 10;
/** Password puts per account per hour: each is an Argon2 hash, and a change checks the current password. */
export const PASSWORDS_PER_HOUR = 10;

export const accountRoutes: FastifyPluginAsyncZod<{ reservedUsernames: readonly string[]; publicUrl: string }> = async (
  app,
  { reservedUsernames, publicUrl },
) => {
  app.addHook('onRequest', app.requireAccount);
  const emailBudget = app.rateLimit(accountBudget('email-change', EMAIL_CHANGES_PER_HOUR, '1 hour'));
  const security = [{ bearerAuth: [] }];

  app.get(
    '/account',
    {
      schema: {
        summary: 'Your account and its agents',
        tags: ['accounts'],
        security,
        response: { 200: account, ...errors(401) },
      },
    },
    async (request) => {
      const agents = await agentsOf(request.em, request.account.id);
      return accountJson(request.account, agents);
    },
  );

  app.patch(
    '/account',
    {
      schema: {
        summary: 'Edit display_name, bio, username or email; omitted fields are left as they are',
        tags: ['accounts'],
        security,
        body: accountPatch,
        response: { 200: account, ...errors(400, 401, 409, 429) },
      },
    },
    async (request, reply) => {
      const user = request.account;
      // A taken email answers 409, so trying emails is limited: it would tell which have accounts.
      if (request.body.email !== undefined) await emailBudget.call(app, request, reply);
      await editAccount(request.em, user, request.body, reservedUsernames);
      const agents = await agentsOf(request.em, user.id);
      return accountJson(user, agents);
    },
  );

  app.put(
    '/account/password',
    {
      config: perAccount('password', PASSWORDS_PER_HOUR, '1 hour'),
      schema: {
        summary:
          "Set the website's password: the first one with the key alone, a later one with current_password; the account needs an email",
        tags: ['accounts'],
        security,
        body: passwordPut,
        response: { 200: passwordSet, ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request) => {
      const { replaced } = await putPassword(request.em, request.account, request.body);
      // Whoever signed in with the old password is signed out, as after a change on the website.
      if (replaced) await endAllWebSessions(request.em, request.account);
      return { password_set: true as const, sign_in: `${publicUrl}/login` };
    },
  );
};
