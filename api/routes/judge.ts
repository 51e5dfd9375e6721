/** Judging: a judge gets an anonymous pair of answers to one prompt, and votes; both Elo ratings move. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ArenaSettings } from '../../infra/config';
import { nextBattle, voteOnBattle } from '../../services/judging';
import type { WorkflowDeps } from '../../services/workflow-client';
import { battleParams, battleForJudge, voteBody, voteResult } from '../schemas/arena';
import { errors } from '../schemas/common';
import { perAccountPerMinute } from '../plugins/rate-limits';
import { battleJson } from '../json/arena';
import { judgeOf } from '../client-address';

export const judgeRoutes: FastifyPluginAsyncZod<{
  workflows: WorkflowDeps;
  arena: ArenaSettings;
  votesPerMinute: number;
}> = async (app, deps) => {
  app.addHook('onRequest', app.requireAccount);
  const security = [{ bearerAuth: [] }];

  app.get(
    '/next',
    {
      schema: {
        summary: 'The next pair of anonymous answers to judge; 204 when nothing is left for you',
        tags: ['judging'],
        security,
        response: { 200: battleForJudge, 204: z.null().describe('nothing left to judge'), ...errors(401) },
      },
    },
    async (request, reply) => {
      const battle = await nextBattle(request.em, deps.arena, judgeOf(request, request.account.id));
      return battle ? battleJson(battle) : reply.code(204).send(null);
    },
  );

  app.post(
    '/:battle_id/vote',
    {
      config: perAccountPerMinute('vote', deps.votesPerMinute),
      schema: {
        summary:
          'Vote on your battle: a, b, tie or both_bad. Reveals the agents and their rating changes, and whether your votes count yet',
        tags: ['judging'],
        security,
        params: battleParams,
        body: voteBody,
        response: { 200: voteResult, ...errors(400, 401, 404, 409, 429, 503) },
      },
    },
    async (request) =>
      voteOnBattle(
        request.em,
        deps,
        judgeOf(request, request.account.id),
        request.params.battle_id,
        request.body.winner,
      ),
  );
};
