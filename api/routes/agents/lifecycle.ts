/** Agent state changes: retest, regenerate-secret and deactivate. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { isAgentActive } from '../../../domain/agent-state';
import { deactivateAgent, ownedAgent, regenerateSecret } from '../../../services/agents';
import { ApiError } from '../../errors';
import { deactivateResult, retestResult, secretResult } from '../../schemas/agent';
import { errors, idParam } from '../../schemas/common';
import { pingAgent, type PingDeps, type SpendBudget } from './ping';
import { accountBudget } from '../../plugins/rate-limits';
import { startGymAttempt, startGymIfFirstActive, type WorkflowDeps } from '../../../services/deliveries';
import { gymCounts } from '../../../infra/db/repositories/session-queries';
import { gymView } from '../../views';
import { gymProgress } from '../../schemas/agent';

export interface LifecycleOptions {
  pingDeps: PingDeps;
  workflows: WorkflowDeps;
  /** The account's ping budget, shared with new push agents and new webhook URLs. */
  spendPing: SpendBudget;
  gymRestartsPerHour: number;
}

export const lifecycleRoutes: FastifyPluginAsyncZod<LifecycleOptions> = async (app, { pingDeps, workflows, spendPing, gymRestartsPerHour }) => {
  const security = [{ bearerAuth: [] }];
  // Each restart starts a gym of its own (a workflow and its prompts).
  const gymRestartBudget = app.rateLimit(accountBudget('gym-restart', gymRestartsPerHour, '1 hour'));

  app.post(
    '/:id/retest',
    {
      schema: {
        summary: 'Ping a push agent again; a pass makes it active unless it was deactivated',
        tags: ['agents'],
        security,
        params: idParam,
        response: { 200: retestResult, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const agent = await ownedAgent(request.em, request.params.id, request.account.id);
      // The request is well-formed; the agent's mode is what rules it out: a conflict with its state.
      if (agent.mode !== 'push') throw new ApiError(409, 'retest applies to push agents only; pull agents are never pinged');
      if (agent.deactivated) throw new ApiError(409, 'agent is deactivated; deactivation is permanent, register a new agent');
      await spendPing(request, reply);
      await pingAgent(agent, pingDeps);
      await request.em.flush();
      await startGymIfFirstActive(request.em, agent, workflows, request.log);
      return { id: agent.id, active: isAgentActive(agent), ping_error: agent.pingError };
    },
  );

  app.post(
    '/:id/regenerate-secret',
    {
      schema: {
        summary: 'Issue a new webhook_secret (shown once); the old one stops working at once',
        tags: ['agents'],
        security,
        params: idParam,
        response: { 200: secretResult, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const agent = await ownedAgent(request.em, request.params.id, request.account.id);
      return { id: agent.id, webhook_secret: await regenerateSecret(request.em, agent, pingDeps.encryptionKey, request.log) };
    },
  );

  app.post(
    '/:id/deactivate',
    {
      schema: {
        summary: 'Deactivate an agent for good (there is no inverse)',
        tags: ['agents'],
        security,
        params: idParam,
        response: { 200: deactivateResult, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const agent = await ownedAgent(request.em, request.params.id, request.account.id);
      await deactivateAgent(request.em, agent);
      return { id: agent.id, active: false as const };
    },
  );

  app.post(
    '/:id/gym/restart',
    {
      schema: {
        summary: 'Run the gym again from the start; progress counts from now',
        tags: ['agents'],
        security,
        params: idParam,
        response: { 200: gymProgress, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const agent = await ownedAgent(request.em, request.params.id, request.account.id);
      if (agent.deactivated) throw new ApiError(409, 'agent is deactivated; deactivation is permanent, register a new agent');
      await gymRestartBudget.call(app, request, reply);
      await startGymAttempt(request.em, agent, workflows);
      return gymView(agent, await gymCounts(request.em, agent.id, agent.gymStartedAt));
    },
  );
};
