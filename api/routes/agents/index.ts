/** /api/agents: create, list, read and edit the caller's own agents. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { Agent } from '../../../infra/db/entities/agent.entity';
import { defaultOwnerHandle, isAgentActive, profileUrl, runCommand } from '../../../domain/agent-state';
import { hashToken, newAgentSecret, sealSecret } from '../../../domain/credentials';
import type { AppDeps } from '../../deps';
import { ApiError } from '../../errors';
import { ownedAgent } from '../../../services/agents';
import { agentCreate, agentCreated, agentDetail, agentListItem, agentPatch } from '../../schemas/agent';
import { errors, idParam } from '../../schemas/common';
import { agentDetailView, agentListView } from '../../views';
import { gymCounts } from '../../../infra/db/repositories/session-queries';
import { startGymIfFirstActive, type WorkflowDeps } from '../../../services/deliveries';
import { lifecycleRoutes } from './lifecycle';
import { sandboxRoutes } from './sandbox';
import { acceptWebhookUrl, pingAgent, type PingDeps, type SpendBudget } from './ping';
import { accountBudget } from '../../plugins/rate-limits';
import { z } from 'zod';

export const agentRoutes: FastifyPluginAsyncZod<{ deps: AppDeps; workflows: WorkflowDeps }> = async (app, { deps, workflows }) => {
  app.addHook('onRequest', app.requireAccount);
  const { config } = deps;
  const security = [{ bearerAuth: [] }];
  const pingDeps: PingDeps = {
    webhooks: deps.webhooks,
    encryptionKey: config.encryptionKey,
    allowPrivateWebhooks: config.allowPrivateWebhooks,
    pingTimeoutMs: deps.pingTimeoutMs,
  };
  // Every ping an owner causes spends one budget: each is an outbound request of up to 15 s whose outcome the owner reads.
  const pingBudget = app.rateLimit(accountBudget('ping', config.limits.pingsPerMinute, '1 minute'));
  const spendPing: SpendBudget = async (request, reply) => {
    await pingBudget.call(app, request, reply);
  };

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
      const body = request.body;
      const owner = request.account;
      const { agentsPerAccount } = config.limits;
      if ((await request.em.count(Agent, { owner, deactivated: false })) >= agentsPerAccount) {
        throw new ApiError(409, `an account may have at most ${agentsPerAccount} agents that are not deactivated; deactivate one first`);
      }
      const webhookUrl = body.mode === 'push' ? acceptWebhookUrl(body.webhook_url!, config.allowPrivateWebhooks) : null;
      if (webhookUrl) await spendPing(request, reply);
      const secret = newAgentSecret();
      const agent = request.em.create(Agent, {
        owner,
        name: body.name,
        mode: body.mode,
        webhookUrl,
        ownerHandle: body.owner_handle ?? defaultOwnerHandle(owner),
        modelClaimed: body.model_claimed ?? null,
        costClaimed: body.cost_claimed ?? null,
        toolsClaimed: body.tools_claimed ?? [],
        description: body.description ?? null,
        secretHash: hashToken(secret),
        secretSealed: sealSecret(secret, config.encryptionKey),
      });
      await request.em.flush();
      if (agent.mode === 'push') {
        await pingAgent(agent, pingDeps);
        await request.em.flush();
      }
      await startGymIfFirstActive(request.em, agent, workflows, request.log);
      request.log.info({ agentId: agent.id, mode: agent.mode, active: isAgentActive(agent) }, 'agent created');
      return reply.code(201).send({
        id: agent.id,
        name: agent.name,
        mode: agent.mode,
        ...(webhookUrl ? { webhook_url: webhookUrl } : {}),
        active: isAgentActive(agent),
        ping_error: agent.pingError,
        webhook_secret: secret,
        profile_url: profileUrl(agent.id),
        ...(agent.mode === 'pull' ? { run_command: runCommand(config.publicUrl, agent.id) } : {}),
      });
    },
  );

  app.get(
    '/',
    { schema: { summary: 'Your agents', tags: ['agents'], security, response: { 200: z.array(agentListItem), ...errors(401) } } },
    async (request) => {
      const agents = await request.em.getRepository(Agent).listOwned(request.account.id);
      return agents.map(agentListView);
    },
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
      return agentDetailView(agent, config.publicUrl, await gymCounts(request.em, agent.id, agent.gymStartedAt));
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
      const body = request.body;
      let urlChanged = false;
      if (body.webhook_url !== undefined) {
        // Well-formed, but not for this agent: a conflict with its mode, as a retest of a pull agent is.
        if (agent.mode === 'pull') throw new ApiError(409, 'pull agents have no webhook_url; create a push agent instead');
        const url = acceptWebhookUrl(body.webhook_url, config.allowPrivateWebhooks);
        urlChanged = url !== agent.webhookUrl;
        // Refused before anything changes, so a refused edit keeps nothing.
        if (urlChanged && !agent.deactivated) await spendPing(request, reply);
        agent.webhookUrl = url;
      }
      if (body.name !== undefined) agent.name = body.name;
      if (body.owner_handle !== undefined) agent.ownerHandle = body.owner_handle ?? defaultOwnerHandle(request.account);
      if (body.model_claimed !== undefined) agent.modelClaimed = body.model_claimed;
      if (body.cost_claimed !== undefined) agent.costClaimed = body.cost_claimed;
      if (body.tools_claimed !== undefined) agent.toolsClaimed = body.tools_claimed;
      if (body.description !== undefined) agent.description = body.description;
      await request.em.flush();
      // Deactivation is permanent, so a deactivated agent's new URL is saved but not pinged.
      if (urlChanged && !agent.deactivated) {
        await pingAgent(agent, pingDeps);
        await request.em.flush();
        await startGymIfFirstActive(request.em, agent, workflows, request.log);
      }
      return agentDetailView(agent, config.publicUrl, await gymCounts(request.em, agent.id, agent.gymStartedAt));
    },
  );

  await app.register(lifecycleRoutes, { pingDeps, workflows, spendPing, gymRestartsPerHour: config.limits.gymRestartsPerHour });
  await app.register(sandboxRoutes, { workflows, sandboxPerMinute: config.limits.sandboxPerMinute });
};
