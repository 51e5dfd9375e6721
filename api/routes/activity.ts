/** The public activity feed of an agent: every delivery it received, newest first. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Agent } from '../../infra/db/entities/agent.entity';
import { feedPage } from '../../infra/db/repositories/session-queries';
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
      const agent = await request.em.findOne(Agent, request.params.id);
      if (!agent) throw notFound('agent');
      const { limit, offset } = request.query;
      const { total, rows } = await feedPage(request.em, agent.id, limit, offset);
      return {
        agent_id: agent.id,
        agent_name: agent.name,
        total,
        limit,
        offset,
        has_more: offset + rows.length < total,
        sessions: rows.map(sessionView),
      };
    },
  );
};
