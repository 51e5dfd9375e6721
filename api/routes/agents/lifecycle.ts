/** Agent state changes: retest, regenerate-secret, deactivate and gym restart. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { gymCounts } from '../../../infra/db/repositories/delivery-read.repository';
import { isAgentActive } from '../../../domain/agent-state';
import { restartGym, retestAgent, type AgentLifecycleDeps } from '../../../services/agent-lifecycle';
import { deactivateAgent, ownedAgent, regenerateSecret } from '../../../services/agents';
import { deactivateResult, gymProgress, retestResult, secretResult } from '../../schemas/agent';
import { errors, idParam } from '../../schemas/common';
import { accountBudget, type SpendBudget } from '../../plugins/rate-limits';
import { gymProgressJson } from '../../json/agents';

export interface LifecycleOptions {
  lifecycle: AgentLifecycleDeps;
  /** The account's ping budget, shared with new push agents and new webhook URLs. */
  spendPing: SpendBudget;
  gymRestartsPerHour: number;
}

export const lifecycleRoutes: FastifyPluginAsyncZod<LifecycleOptions> = async (
  app,
  { lifecycle, spendPing, gymRestartsPerHour },
) => {
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
      await retestAgent(request.em, lifecycle, agent, () => spendPing(request, reply), request.log);
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
      return {
        id: agent.id,
        webhook_secret: await regenerateSecret(request.em, agent, lifecycle.ping.encryptionKey, request.log),
      };
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
      await restartGym(request.em, lifecycle.workflows, agent, async () => {
        await gymRestartBudget.call(app, request, reply);
      });
      return gymProgressJson(agent, await gymCounts(request.em, agent.id, agent.gymStartedAt));
    },
  );
};
