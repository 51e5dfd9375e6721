/** POST /api/register: a new account and its first API key, no authentication needed. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ApiKey } from '../../infra/db/entities/api-key.entity';
import { User } from '../../infra/db/entities/user.entity';
import { apiKeyPrefix, hashToken, newApiKey } from '../../domain/credentials';
import { generatedUsername } from '../../domain/username';
import { perAddress } from '../plugins/rate-limits';
import { errors } from '../schemas/common';
import { registration } from '../schemas/account';

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
      const apiKey = newApiKey();
      // A generated name can collide; a couple of fresh draws settle it.
      for (let attempt = 0; ; attempt++) {
        const em = request.em.fork();
        const user = em.create(User, { username: generatedUsername(), registrationIp: request.ip });
        em.create(ApiKey, { user, keyHash: hashToken(apiKey), keyPrefix: apiKeyPrefix(apiKey) });
        try {
          await em.flush();
        } catch (err) {
          if (err instanceof UniqueConstraintViolationException && attempt < 3) continue;
          throw err;
        }
        request.log.info({ userId: user.id }, 'account registered');
        return reply.code(201).send({
          api_key: apiKey,
          user_id: user.id,
          username: user.username,
          message: 'Store this API key now: it is shown only once and cannot be recovered.',
        });
      }
    },
  );
};
