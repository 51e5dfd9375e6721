/** Judging: a judge gets an anonymous pair of answers to one prompt, and votes; both Elo ratings move. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Battle } from '../../infra/db/entities/battle.entity';
import { findBattle, leastJudgedPair, openBattleOf, votesToday, type BattleRow } from '../../infra/db/repositories/arena-queries';
import type { ArenaSettings } from '../../infra/config';
import { castVote, type WorkflowDeps } from '../deliveries';
import { ApiError, notFound } from '../errors';
import { battleParams, battleView, voteBody, voteResult } from '../schemas/arena';
import { errors } from '../schemas/common';
import { battleViewOf, revealedSide } from '../views-arena';

export const judgeRoutes: FastifyPluginAsyncZod<{ workflows: WorkflowDeps; arena: ArenaSettings }> = async (app, { workflows, arena }) => {
  app.addHook('onRequest', app.requireAccount);
  const security = [{ bearerAuth: [] }];

  app.get(
    '/next',
    {
      schema: {
        summary: 'The next pair of anonymous answers to judge; 204 when nothing is left for you',
        tags: ['judging'],
        security,
        response: { 200: battleView, 204: z.null().describe('nothing left to judge'), ...errors(401) },
      },
    },
    async (request, reply) => {
      const judgeId = request.account.id;
      const open = await openBattleOf(request.em, judgeId);
      if (open) return battleViewOf(open);
      const pair = await leastJudgedPair(request.em, judgeId);
      if (!pair) return reply.code(204).send(null);
      // Sides at random, so position says nothing about which agent answered.
      const flip = Math.random() < 0.5;
      const battle = request.em.create(Battle, {
        prompt: pair.prompt_id,
        judge: judgeId,
        sessionA: flip ? pair.high : pair.low,
        sessionB: flip ? pair.low : pair.high,
        agentA: flip ? pair.high_agent : pair.low_agent,
        agentB: flip ? pair.low_agent : pair.high_agent,
        pairLow: pair.low,
        pairHigh: pair.high,
      });
      await request.em.flush();
      return battleViewOf((await findBattle(request.em, battle.id))!);
    },
  );

  app.post(
    '/:battle_id/vote',
    {
      schema: {
        summary: 'Vote on your battle: a, b, tie or both_bad. Reveals the agents and their rating changes',
        tags: ['judging'],
        security,
        params: battleParams,
        body: voteBody,
        response: { 200: voteResult, ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => {
      const judgeId = request.account.id;
      const battle = await findBattle(request.em, request.params.battle_id);
      if (!battle || battle.judge_id !== judgeId) throw notFound('battle');
      if (battle.owner_a_id === judgeId || battle.owner_b_id === judgeId) throw new ApiError(403, 'you cannot judge a battle of your own agents');
      assertVotable(battle);
      if ((await votesToday(request.em, judgeId)) >= arena.dailyVotes) {
        throw new ApiError(429, `daily vote limit reached (${arena.dailyVotes} a day); try again tomorrow (UTC)`, {
          'Retry-After': String(secondsToUtcMidnight()),
        });
      }
      const outcome = await castVote(workflows, battle.id, request.body.winner);
      if (!outcome) throw new ApiError(409, 'this battle has already been voted');
      const [a, b] = await Promise.all([revealedSide(request.em, outcome.a), revealedSide(request.em, outcome.b)]);
      return { battle_id: battle.id, winner: outcome.winner, a, b };
    },
  );
};

function assertVotable(battle: BattleRow): void {
  if (battle.status === 'voted') throw new ApiError(409, 'this battle has already been voted');
  if (battle.status === 'running') throw new ApiError(409, 'this battle is still running: both answers are not in yet');
  if (battle.status === 'void') throw new ApiError(409, 'this battle is void: one side did not answer');
}

function secondsToUtcMidnight(now = new Date()): number {
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1);
  return Math.max(1, Math.ceil((midnight - now.getTime()) / 1000));
}
