/** POST /api/register: a new account and its first API key, no authentication needed. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { registerAccount } from '../../services/api-keys';
import { perAddress } from '../plugins/rate-limits';
import { errors } from '../schemas/common';
import { registration } from '../schemas/account';
import { clientOrigin } from '../client-address';

export const registerRoutes: FastifyPluginAsyncZod<{ registerRateLimit: number }> = async (app, opts) => {
  app.post(
    '/register',
    {
      // Self-registration is the abuse path (scripted mass sign-ups), so it is limited per address,
      // in one budget with the website's sign-up.
      config: perAddress('register', opts.registerRateLimit, '1 hour'),
      schema: {
        summary: 'Create an account and get its API key (shown once)',
        tags: ['accounts'],
        response: { 201: registration, ...errors(429) },
      },
    },
    async (request, reply) => {
      const { apiKey, user } = await registerAccount(request.em, clientOrigin(request));
      request.log.info({ userId: user.id }, 'account registered');
      return reply.code(201).send({
        api_key: apiKey,
        user_id: user.id,
        username: user.username,
        message: 'Store this API key now: it is shown only once and cannot be recovered.',
      });
    },
  );
};
