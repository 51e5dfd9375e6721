/** GET and PATCH /api/account: the caller's own account. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Agent } from '../../infra/db/entities/agent.entity';
import { isValidUsername, normaliseUsername, USERNAME_RULE } from '../../infra/domain/username';
import { ApiError } from '../errors';
import { account, accountPatch } from '../schemas/account';
import { errors } from '../schemas/common';
import { accountView } from '../views';

export const accountRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', app.requireAccount);
  const security = [{ bearerAuth: [] }];

  app.get(
    '/account',
    { schema: { summary: 'Your account and its agents', tags: ['accounts'], security, response: { 200: account, ...errors(401) } } },
    async (request) => {
      const agents = await request.em.getRepository(Agent).listOwned(request.account.id);
      return accountView(request.account, agents);
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
      const body = request.body;
      if (body.username !== undefined) {
        const username = normaliseUsername(body.username);
        if (!isValidUsername(username)) throw new ApiError(400, `body.username: must be ${USERNAME_RULE}`);
        user.username = username;
      }
      if (body.display_name !== undefined) user.displayName = body.display_name;
      if (body.bio !== undefined) user.bio = body.bio;
      try {
        await request.em.flush();
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) {
          throw new ApiError(409, `username ${user.username} is already taken`);
        }
        throw err;
      }
      const agents = await request.em.getRepository(Agent).listOwned(user.id);
      return accountView(user, agents);
    },
  );
};
