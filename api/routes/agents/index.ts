/** /api/agents: create, list, read and edit the caller's own agents. */
import { codingDepsOf } from '../../../services/coding-sessions';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { gymCounts } from '../../../infra/db/repositories/delivery-read.repository';
import {
  createAgent,
  editAgent,
  type AgentCreate,
  type AgentEdit,
  type AgentLifecycleDeps,
} from '../../../services/agent-lifecycle';
import { agentsOf, ownedAgent } from '../../../services/agents';
import type { WorkflowDeps } from '../../../services/workflow-client';
import type { AppDeps } from '../../deps';
import { agentCreate, agentCreated, agentDetail, agentListItem, agentPatch } from '../../schemas/agent';
import { errors, idParam } from '../../schemas/common';
import { agentCreatedJson, agentDetailJson, agentListItemJson } from '../../json/agents';
import { pingSpender } from '../../plugins/rate-limits';
import { lifecycleRoutes } from './lifecycle';
import { sandboxRoutes } from './sandbox';
import { requestBase } from '../../request-base';
import { named } from '../../plugins/plugin-name';

// The request bodies are what the use cases take: a schema that drifts from them fails to compile.
agentCreate satisfies z.ZodType<AgentCreate>;
agentPatch satisfies z.ZodType<AgentEdit>;

/** What creating, editing and retesting an agent need, the API and the website alike. */
export function lifecycleDepsOf(deps: AppDeps, workflows: WorkflowDeps): AgentLifecycleDeps {
  return {
    ping: {
      webhooks: deps.webhooks,
      encryptionKey: deps.config.encryptionKey,
      allowPrivateWebhooks: deps.config.allowPrivateWebhooks,
      pingTimeoutMs: deps.pingTimeoutMs,
    },
    workflows,
    agentsPerAccount: deps.config.limits.agentsPerAccount,
  };
}

export const agentRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; workflows: WorkflowDeps }> = async (
  app,
  { deps, workflows },
) => {
  app.addHook('onRequest', app.requireAccount);
  const { config } = deps;
  const security = [{ bearerAuth: [] }];
  const lifecycle = lifecycleDepsOf(deps, workflows);
  const spendPing = pingSpender(app, config.limits.pingsPerMinute);

  app.post(
    '/',
    {
      schema: {
        summary: 'Register an agent; push agents are pinged at once. The webhook_secret is shown once.',
        tags: ['agents'],
        security,
        body: agentCreate,
        response: { 201: agentCreated, ...errors(400, 401, 409, 429) },
      },
    },
    async (request, reply) => {
      const { agent, secret } = await createAgent(
        request.em,
        lifecycle,
        request.account,
        request.body,
        () => spendPing(request, reply),
        request.log,
      );
      return reply.code(201).send(agentCreatedJson(agent, secret, requestBase(request, config), request.account));
    },
  );

  app.get(
    '/',
    {
      schema: {
        summary: 'Your agents',
        tags: ['agents'],
        security,
        response: { 200: z.array(agentListItem), ...errors(401) },
      },
    },
    async (request) => (await agentsOf(request.em, request.account.id)).map(agentListItemJson),
  );

  app.get(
    '/:id',
    {
      schema: {
        summary: 'One of your agents in full, with its gym progress',
        tags: ['agents'],
        security,
        params: idParam,
        response: { 200: agentDetail, ...errors(400, 401, 404) },
      },
    },
    async (request) => {
      const agent = await ownedAgent(request.em, request.params.id, request.account.id);
      return agentDetailJson(
        agent,
        requestBase(request, config),
        await gymCounts(request.em, agent.id, agent.gymStartedAt),
      );
    },
  );

  app.patch(
    '/:id',
    {
      schema: {
        summary: 'Edit an agent; omitted fields are left as they are. A new webhook_url is pinged at once.',
        tags: ['agents'],
        security,
        params: idParam,
        body: agentPatch,
        response: { 200: agentDetail, ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      const agent = await ownedAgent(request.em, request.params.id, request.account.id);
      await editAgent(
        request.em,
        lifecycle,
        request.account,
        agent,
        request.body,
        () => spendPing(request, reply),
        request.log,
      );
      return agentDetailJson(
        agent,
        requestBase(request, config),
        await gymCounts(request.em, agent.id, agent.gymStartedAt),
      );
    },
  );

  await app.register(named(lifecycleRoutes), {
    lifecycle,
    spendPing,
    gymRestartsPerHour: config.limits.gymRestartsPerHour,
  });
  await app.register(named(sandboxRoutes), {
    workflows,
    coding: codingDepsOf(workflows, config.sandbox),
    sandboxPerMinute: config.limits.sandboxPerMinute,
    benchmarksPerHour: config.limits.benchmarksPerHour,
  });
};
