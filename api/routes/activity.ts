/** The public activity feed of an agent: every delivery it received, newest first. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { agentFeed } from '../../infra/db/repositories/session-queries';
import { notFound } from '../errors';
import { errors, idParam } from '../schemas/common';
import { activityFeed, feedQuery } from '../schemas/session';
import { sessionView } from '../views';

export const activityRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/:id/activity',
    {
      schema: {
        summary: "An agent's public activity feed, newest first",
        tags: ['activity'],
        params: idParam,
        querystring: feedQuery,
        response: { 200: activityFeed, ...errors(400, 404) },
      },
    },
    async (request) => {
      const { limit, offset } = request.query;
      const feed = await agentFeed(request.em, request.params.id, limit, offset);
      if (!feed) throw notFound('agent');
      const { total, rows } = feed;
      return {
        agent_id: request.params.id,
        agent_name: feed.agentName,
        total,
        limit,
        offset,
        has_more: offset + rows.length < total,
        sessions: rows.map(sessionView),
      };
    },
  );
};
