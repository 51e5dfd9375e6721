/** GET, POST and DELETE /api/keys: the caller's own API keys, listed, issued and revoked. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { API_KEYS_PER_MINUTE, issueApiKey, listApiKeys, revokeApiKey } from '../../services/api-keys';
import { apiKeyJson } from '../json/accounts';
import { perAccountPerMinute } from '../plugins/rate-limits';
import { apiKeyEntry, apiKeyIssued } from '../schemas/api-key';
import { errors, idParam } from '../schemas/common';

export const keyRoutes: FastifyPluginAsyncZod = async (app) => {
  app.addHook('onRequest', app.requireAccount);
  const security = [{ bearerAuth: [] }];

  app.get(
    '/keys',
    {
      schema: {
        summary: 'Your API keys: prefix, created and last used (never the key itself)',
        tags: ['accounts'],
        security,
        response: { 200: z.array(apiKeyEntry), ...errors(401) },
      },
    },
    async (request) => (await listApiKeys(request.em, request.account.id)).map(apiKeyJson),
  );

  app.post(
    '/keys',
    {
      config: perAccountPerMinute('api-key', API_KEYS_PER_MINUTE),
      schema: {
        summary: `Issue another API key (shown once); at most ${API_KEYS_PER_MINUTE} a minute`,
        tags: ['accounts'],
        security,
        response: { 201: apiKeyIssued, ...errors(401, 429) },
      },
    },
    async (request, reply) => {
      const { apiKey, key } = await issueApiKey(request.em, request.account);
      request.log.info({ userId: request.account.id, keyId: key.id }, 'API key issued');
      return reply.code(201).send({
        ...apiKeyJson(key),
        api_key: apiKey,
        message: 'Store this API key now: it is shown only once and cannot be recovered.',
      });
    },
  );

  app.delete(
    '/keys/:id',
    {
      schema: {
        summary: 'Revoke one of your API keys; it is refused from the next request on, even the key making this call',
        tags: ['accounts'],
        security,
        params: idParam,
        response: { 204: z.null().describe('revoked'), ...errors(400, 401, 404) },
      },
    },
    async (request, reply) => {
      await revokeApiKey(request.em, request.account.id, request.params.id);
      request.log.info({ userId: request.account.id, keyId: request.params.id }, 'API key revoked');
      return reply.code(204).send(null);
    },
  );
};
