/** Sandbox tasks: an owner sends a prompt of their own to their agent, end to end, never judged. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { cancelSandboxTask, ownedAgent, startSandboxTask } from '../../../services/agents';
import type { WorkflowDeps } from '../../../services/workflow-client';
import { errors, idParam } from '../../schemas/common';
import { perAccountPerMinute } from '../../plugins/rate-limits';
import { activitySession, sandboxCreate, sandboxParams } from '../../schemas/session';
import { sessionJson } from '../../json/agents';

export const sandboxRoutes: FastifyPluginAsyncZod<{ workflows: WorkflowDeps; sandboxPerMinute: number }> = async (
  app,
  { workflows, sandboxPerMinute },
) => {
  const security = [{ bearerAuth: [] }];

  app.post(
    '/:id/sandbox',
    {
      config: perAccountPerMinute('sandbox', sandboxPerMinute),
      schema: {
        summary: 'Send your agent a prompt of your own; answers 202 with the pending session',
        tags: ['sandbox'],
        security,
        params: idParam,
        body: sandboxCreate,
        response: { 202: activitySession, ...errors(400, 401, 404, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      const agent = await ownedAgent(request.em, request.params.id, request.account.id);
      const row = await startSandboxTask(request.em, workflows, agent, request.body, request.log);
      return reply.code(202).send(sessionJson(row, true));
    },
  );

  app.post(
    '/:id/sandbox/:session_id/cancel',
    {
      schema: {
        summary: 'Cancel a pending sandbox task',
        tags: ['sandbox'],
        security,
        params: sandboxParams,
        response: { 200: activitySession, ...errors(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const agent = await ownedAgent(request.em, request.params.id, request.account.id);
      return sessionJson(await cancelSandboxTask(request.em, workflows, agent, request.params.session_id), true);
    },
  );
};
