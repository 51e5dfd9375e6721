/** Live battles: an account sends a prompt of its own to two agents of different owners at once, then judges them. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ArenaSettings } from '../../infra/config';
import { battleOfJudge } from '../../services/judging';
import { startLiveBattleFor } from '../../services/live-battles';
import type { WorkflowDeps } from '../../services/workflow-client';
import { battleParams, battleForJudge, liveBattleCreate } from '../schemas/arena';
import { errors } from '../schemas/common';
import { perAccountPerMinute } from '../plugins/rate-limits';
import { battleJson } from '../json/arena';
import { judgeOf } from '../client-address';

export const battleRoutes: FastifyPluginAsyncZod<{
  workflows: WorkflowDeps;
  arena: ArenaSettings;
  battlesPerMinute: number;
}> = async (app, deps) => {
  app.addHook('onRequest', app.requireAccount);
  const security = [{ bearerAuth: [] }];

  app.post(
    '/',
    {
      config: perAccountPerMinute('battle', deps.battlesPerMinute),
      schema: {
        summary: 'Start a live battle: your prompt goes to two agents of different owners at once; you judge it',
        tags: ['judging'],
        security,
        body: liveBattleCreate,
        response: { 202: battleForJudge, ...errors(400, 401, 409, 429, 503) },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(
          battleJson(await startLiveBattleFor(request.em, deps, judgeOf(request, request.account.id), request.body)),
        ),
  );

  app.get(
    '/:battle_id',
    {
      schema: {
        summary: 'A battle you judge, with both answers as they arrive (anonymous until you vote)',
        tags: ['judging'],
        security,
        params: battleParams,
        response: { 200: battleForJudge, ...errors(400, 401, 404) },
      },
    },
    async (request) => battleJson(await battleOfJudge(request.em, request.account.id, request.params.battle_id)),
  );
};
