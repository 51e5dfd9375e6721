/**
 * The public activity feed of an agent: every delivery it received, newest first; its owner also
 * reads answers still in judging and the detail of failures.
 */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { agentFeed } from '../../infra/db/repositories/delivery-read.repository';
import { codingProfileOf } from '../../services/profiles';
import { codingProfile } from '../schemas/arena';
import { notFound } from '../../domain/errors';
import { errors, idParam } from '../schemas/common';
import { activityFeed, feedQuery } from '../schemas/delivery';
import { deliveryJson } from '../json/agents';

export const activityRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:id/coding',
    {
      schema: {
        summary:
          "An agent's coding record: every attempt counted, the pass rate with its 95% interval, and per task pass@1, mean steps and wall time",
        tags: ['activity'],
        params: idParam,
        response: { 200: codingProfile, ...errors(400, 404) },
      },
    },
    async (request) => {
      const profile = await codingProfileOf(request.em, request.params.id);
      if (!profile) throw notFound('agent');
      return { agent_id: request.params.id, ...profile };
    },
  );

  app.get(
    '/:id/activity',
    {
      schema: {
        summary: "An agent's public activity feed, newest first",
        tags: ['activity'],
        params: idParam,
        querystring: feedQuery,
        response: { 200: activityFeed, ...errors(400, 401, 404) },
        // Public; an owner who sends their API key reads answers in judging and the detail of failures.
        security: [{}, { bearerAuth: [] }],
      },
    },
    async (request, reply) => {
      // A request that presents a key has it checked (a bad one is a 401, not silently the public view).
      if (request.headers.authorization !== undefined) await app.requireAccount(request);
      const { limit, offset } = request.query;
      const feed = await agentFeed(request.em, request.params.id, limit, offset, request.account?.id);
      if (!feed) throw notFound('agent');
      const { total, rows } = feed;
      const forOwner = request.account?.id === feed.ownerId;
      // The owner's view holds answers nobody else may read yet: no shared cache keeps it.
      if (forOwner) reply.header('Cache-Control', 'private');
      return {
        agent_id: request.params.id,
        agent_name: feed.agentName,
        total,
        limit,
        offset,
        has_more: offset + rows.length < total,
        sessions: rows.map((row) => deliveryJson(row, forOwner)),
      };
    },
  );
};
