/** GET and PATCH /api/account: the caller's own account. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { editAccount } from '../../services/account';
import { agentsOf } from '../../services/agents';
import { account, accountPatch } from '../schemas/account';
import { errors } from '../schemas/common';
import { accountJson } from '../json/accounts';

export const accountRoutes: FastifyPluginAsyncZod<{ reservedUsernames: readonly string[] }> = async (
  app,
  { reservedUsernames },
) => {
  app.addHook('onRequest', app.requireAccount);
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
        summary: 'Edit display_name, bio or username; omitted fields are left as they are',
        tags: ['accounts'],
        security,
        body: accountPatch,
        response: { 200: account, ...errors(400, 401, 409) },
      },
    },
    async (request) => {
      const user = request.account;
      await editAccount(request.em, user, request.body, reservedUsernames);
      const agents = await agentsOf(request.em, user.id);
      return accountJson(user, agents);
    },
  );
};
