/** Sandbox tasks: an owner sends a prompt of their own to their agent, end to end, never judged. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Agent } from '../../../infra/db/entities/agent.entity';
import { Prompt } from '../../../infra/db/entities/prompt.entity';
import { Session } from '../../../infra/db/entities/session.entity';
import { findSession } from '../../../infra/db/repositories/session-queries';
import { isAgentActive } from '../../../infra/domain/agent-state';
import { parseSessionPublicId } from '../../../infra/domain/sessions';
import { cancelSandbox, startDelivery, type WorkflowDeps } from '../../deliveries';
import { ApiError, notFound } from '../../errors';
import { errors, idParam } from '../../schemas/common';
import { activitySession, sandboxCreate, sandboxParams } from '../../schemas/session';
import { sessionView } from '../../views';

export const sandboxRoutes: FastifyPluginAsyncZod<{ workflows: WorkflowDeps }> = async (app, { workflows }) => {
  const security = [{ bearerAuth: [] }];

  app.post(
    '/:id/sandbox',
    {
      schema: {
        summary: 'Send your agent a prompt of your own; answers 202 with the pending session',
        tags: ['sandbox'],
        security,
        params: idParam,
        body: sandboxCreate,
        response: { 202: activitySession, ...errors(400, 401, 404, 409, 503) },
      },
    },
    async (request, reply) => {
      const agent = await request.em.getRepository(Agent).findOwned(request.params.id, request.account.id);
      if (!agent) throw notFound('agent');
      if (agent.deactivated) throw new ApiError(409, 'agent is deactivated');
      if (!isAgentActive(agent)) throw new ApiError(409, `agent is not active: its last ping failed (${agent.pingError}); fix the webhook and retest`);
      const { prompt: text, category, deadline_seconds: deadlineSeconds } = request.body;
      const prompt = request.em.create(Prompt, { source: 'sandbox', category, text });
      const session = request.em.create(Session, { agent, kind: 'sandbox', prompt, mode: agent.mode, category, deadlineSeconds });
      await request.em.flush();
      try {
        await startDelivery(workflows, { sessionId: session.id, agentId: agent.id, kind: 'sandbox', mode: agent.mode, category, deadlineSeconds });
      } catch (err) {
        // Nothing will deliver it: close the session so the feed does not show it pending for ever.
        session.status = 'error';
        session.error = 'the delivery could not be started';
        session.latencyMs = 0;
        session.completedAt = new Date();
        await request.em.flush();
        request.log.error({ err, sessionId: session.id }, 'could not start a sandbox delivery');
        throw new ApiError(503, 'the delivery service is unavailable; try again shortly', { 'Retry-After': '5' });
      }
      const row = await findSession(request.em, agent.id, session.id);
      return reply.code(202).send(sessionView(row!));
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
      const agent = await request.em.getRepository(Agent).findOwned(request.params.id, request.account.id);
      if (!agent) throw notFound('agent');
      const parsed = parseSessionPublicId(request.params.session_id);
      if (!parsed || parsed.kind !== 'sandbox') throw notFound('sandbox task');
      const before = await findSession(request.em, agent.id, parsed.id);
      if (!before || before.kind !== 'sandbox') throw notFound('sandbox task');
      if (before.status !== 'pending') throw new ApiError(409, `the task has already ended (${before.status})`);
      const result = await cancelSandbox(workflows, parsed.id);
      if (result.kind === 'refused') throw new ApiError(409, result.reason);
      const after = await findSession(request.em, agent.id, parsed.id);
      if (after!.status !== 'cancelled') throw new ApiError(409, `the task has already ended (${after!.status})`);
      return sessionView(after!);
    },
  );
};
