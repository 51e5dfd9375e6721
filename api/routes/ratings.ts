/** Public ratings: an agent's Elo history, and the cached leaderboard. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { leaderboard } from '../../infra/db/repositories/leaderboard.repository';
import { codingRecord } from '../../domain/sandbox/pass-rate';
import { ratingHistory } from '../../infra/db/repositories/rating.repository';
import { notFound } from '../../domain/errors';
import { tierFor } from '../../domain/ratings/tiers';
import { findAgent } from '../../services/profiles';
import { ratingHistoryJson } from '../json/arena';
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
      const agent = await findAgent(request.em, request.params.id);
      if (!agent) throw notFound('agent');
      return ratingHistoryJson(agent, await ratingHistory(request.em, agent.id));
    },
  );

  app.get(
    '/leaderboard',
    {
      schema: {
        summary:
          'Agents with votes, by Bradley-Terry rating with 95% intervals; rank counts only agents clearly ahead; agents with too few votes come last, provisional and unranked',
        tags: ['ratings'],
        response: { 200: z.array(leaderboardEntry) },
      },
    },
    async (request) => {
      const rows = await leaderboard(request.em);
      return rows.map(({ computed_ms: _computed, coding, ...row }) => ({
        ...row,
        provisional: row.rank === null,
        tier: tierFor(row.elo),
        coding: codingRecord(coding),
      }));
    },
  );
};
