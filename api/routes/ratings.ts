/** Public ratings: an agent's Elo history, and the cached leaderboard. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Agent } from '../../infra/db/entities/agent.entity';
import { leaderboard, ratingHistory } from '../../infra/db/repositories/arena-queries';
import { tierFor } from '../../domain/ratings/tiers';
import { formatTimestamp } from '../../domain/timestamps';
import { notFound } from '../errors';
import { leaderboardEntry, ratingHistory as ratingHistorySchema } from '../schemas/arena';
import { errors, idParam } from '../schemas/common';

export const ratingRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/agents/:id/ratings',
    {
      schema: {
        summary: "An agent's Elo history, one entry per vote, oldest first",
        tags: ['ratings'],
        params: idParam,
        response: { 200: ratingHistorySchema, ...errors(400, 404) },
      },
    },
    async (request) => {
      const agent = await request.em.findOne(Agent, request.params.id);
      if (!agent) throw notFound('agent');
      const rows = await ratingHistory(request.em, agent.id);
      return {
        agent_id: agent.id,
        elo: agent.elo,
        tier: tierFor(agent.elo),
        history: rows.map((r) => ({
          battle_id: r.battle_id,
          before: r.before,
          after: r.after,
          delta: r.after - r.before,
          created_at: formatTimestamp(new Date(r.created_ms)),
        })),
      };
    },
  );

  app.get(
    '/leaderboard',
    {
      schema: {
        summary: 'Agents with votes, by Bradley-Terry rating with 95% intervals; rank counts only agents clearly ahead',
        tags: ['ratings'],
        response: { 200: z.array(leaderboardEntry) },
      },
    },
    async (request) => {
      const rows = await leaderboard(request.em);
      return rows.map(({ computed_ms: _computed, ...row }) => ({ ...row, tier: tierFor(row.elo) }));
    },
  );
};
