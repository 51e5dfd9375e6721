/** Live battles: an account sends a prompt of its own to two agents of different owners at once, then judges them. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ArenaSettings } from '../../infra/config';
import { Battle } from '../../infra/db/entities/battle.entity';
import { Prompt } from '../../infra/db/entities/prompt.entity';
import { Session } from '../../infra/db/entities/session.entity';
import { eligibleAgents, findBattle } from '../../infra/db/repositories/arena-queries';
import type { DeliveryInput } from '../../workflows/contracts';
import { startLiveBattle, type WorkflowDeps } from '../deliveries';
import { ApiError, notFound } from '../errors';
import { battleParams, battleView, liveBattleCreate } from '../schemas/arena';
import { errors } from '../schemas/common';
import { battleViewOf } from '../views-arena';

export const battleRoutes: FastifyPluginAsyncZod<{ workflows: WorkflowDeps; arena: ArenaSettings }> = async (app, { workflows, arena }) => {
  app.addHook('onRequest', app.requireAccount);
  const security = [{ bearerAuth: [] }];

  app.post(
    '/',
    {
      schema: {
        summary: 'Start a live battle: your prompt goes to two agents of different owners at once; you judge it',
        tags: ['judging'],
        security,
        body: liveBattleCreate,
        response: { 202: battleView, ...errors(400, 401, 409, 503) },
      },
    },
    async (request, reply) => {
      const me = request.account.id;
      const candidates = await eligibleAgents(request.em, arena.requireGym, me);
      const first = candidates[0];
      const second = candidates.find((c) => first && c.owner_id !== first.owner_id);
      if (!first || !second) throw new ApiError(409, 'a live battle needs two eligible agents of different owners (not yours); there are not enough yet');
      const { prompt: text, category, deadline_seconds: deadlineSeconds } = request.body;
      const em = request.em;
      const prompt = em.create(Prompt, { source: 'live', category, text });
      const [sessionA, sessionB] = [first, second].map((agent) =>
        em.create(Session, { agent: agent.id, kind: 'main', prompt, mode: agent.mode, category, deadlineSeconds }),
      ) as [Session, Session];
      await em.flush();
      const battle = em.create(Battle, {
        prompt,
        judge: me,
        sessionA,
        sessionB,
        agentA: first.id,
        agentB: second.id,
        pairLow: Math.min(sessionA.id, sessionB.id),
        pairHigh: Math.max(sessionA.id, sessionB.id),
        live: true,
        status: 'running',
      });
      await em.flush();
      const delivery = (session: Session, agent: typeof first): DeliveryInput => ({
        sessionId: session.id,
        agentId: agent.id,
        kind: 'main',
        mode: agent.mode,
        category,
        deadlineSeconds,
      });
      try {
        await startLiveBattle(workflows, { battleId: battle.id, deliveries: [delivery(sessionA, first), delivery(sessionB, second)] });
      } catch (err) {
        // Nothing will deliver it: close it so nothing shows as pending for ever.
        battle.status = 'void';
        for (const s of [sessionA, sessionB]) Object.assign(s, { status: 'error', error: 'the delivery could not be started', latencyMs: 0, completedAt: new Date() });
        await em.flush();
        throw err;
      }
      return reply.code(202).send(battleViewOf((await findBattle(em, battle.id))!));
    },
  );

  app.get(
    '/:battle_id',
    {
      schema: {
        summary: 'A battle you judge, with both answers as they arrive (anonymous until you vote)',
        tags: ['judging'],
        security,
        params: battleParams,
        response: { 200: battleView, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const battle = await findBattle(request.em, request.params.battle_id);
      if (!battle || battle.judge_id !== request.account.id) throw notFound('battle');
      return battleViewOf(battle);
    },
  );
};
