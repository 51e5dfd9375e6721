/** An owner registers and edits agents, retests push agents and restarts the gym: the API and the website share these rules. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import { Agent } from '../infra/db/entities/agent.entity';
import type { User } from '../infra/db/entities/user.entity';
import { accountOwnerName, isAgentActive, isCalledOut } from '../domain/agent-state';
import { hashToken, newAgentSecret, sealSecret } from '../domain/credentials';
import { ArenaError } from '../domain/errors';
import { acceptWebhookUrl, pingAgent, type PingDeps, type SpendPing } from './agent-pings';
import { startGymAttempt, startGymIfFirstActive } from './gym';
import type { WorkflowDeps } from './workflow-client';

/** What an agent says about itself, the same in both modes; null clears a text. */
export interface AgentClaims {
  name: string;
  owner_handle?: string | null;
  model_claimed?: string | null;
  cost_claimed?: string | null;
  tools_claimed?: string[];
  description?: string | null;
}

/** A new agent: a push agent needs a webhook URL, a pull agent has none (api/schemas/agent's agentCreate is checked against it). */
export type AgentCreate = AgentClaims &
  (
    | { mode: 'push'; webhook_url: string; agent_card_url?: undefined }
    | { mode: 'pull'; webhook_url?: undefined; agent_card_url?: undefined }
    | { mode: 'a2a'; agent_card_url: string; webhook_url?: undefined }
  );

/** An edit: omitted fields stay as they are. */
export type AgentEdit = Partial<AgentClaims> & { webhook_url?: string; agent_card_url?: string };

export interface AgentLifecycleDeps {
  ping: PingDeps;
  workflows: WorkflowDeps;
  /** Agents an account may have that are not deactivated. */
  agentsPerAccount: number;
}

const DEACTIVATED = 'agent is deactivated; deactivation is permanent, register a new agent';

/** Registers an agent and pings a push or A2A agent at once; the secret comes back once, with the agent. */
export async function createAgent(
  em: EntityManager,
  deps: AgentLifecycleDeps,
  owner: User,
  input: AgentCreate,
  spendPing: SpendPing,
  log: FastifyBaseLogger,
): Promise<{ agent: Agent; secret: string }> {
  const { agentsPerAccount } = deps;
  if ((await em.count(Agent, { owner, deactivated: false })) >= agentsPerAccount) {
    throw new ArenaError(
      'conflict',
      `an account may have at most ${agentsPerAccount} agents that are not deactivated; deactivate one first`,
    );
  }
  const allowPrivate = deps.ping.allowPrivateWebhooks;
  const webhookUrl = input.mode === 'push' ? acceptWebhookUrl(input.webhook_url, allowPrivate) : null;
  const agentCardUrl =
    input.mode === 'a2a' ? acceptWebhookUrl(input.agent_card_url, allowPrivate, 'agent_card_url') : null;
  if (isCalledOut(input.mode)) await spendPing();
  const secret = newAgentSecret();
  const agent = em.create(Agent, {
    owner,
    name: input.name,
    mode: input.mode,
    webhookUrl,
    agentCardUrl,
    ...ownerName(owner, input.owner_handle ?? null),
    modelClaimed: input.model_claimed ?? null,
    costClaimed: input.cost_claimed ?? null,
    toolsClaimed: input.tools_claimed ?? [],
    description: input.description ?? null,
    secretHash: hashToken(secret),
    secretSealed: sealSecret(secret, deps.ping.encryptionKey),
  });
  await em.flush();
  if (isCalledOut(agent.mode)) {
    await pingAgent(agent, deps.ping);
    await em.flush();
  }
  await startGymIfFirstActive(em, agent, deps.workflows, log);
  log.info({ agentId: agent.id, mode: agent.mode, active: isAgentActive(agent) }, 'agent created');
  return { agent, secret };
}

/**
 * An agent's owner name from what its owner gave: a name of its own, or (null, or the account's own
 * name) the account's name, which it then follows.
 */
function ownerName(owner: User, handle: string | null): { ownerHandle: string; ownerHandleOwn: boolean } {
  const account = accountOwnerName(owner);
  return handle === null || handle === account
    ? { ownerHandle: account, ownerHandleOwn: false }
    : { ownerHandle: handle, ownerHandleOwn: true };
}

function applyOwnerHandle(owner: User, agent: Agent, handle: string | null): void {
  Object.assign(agent, ownerName(owner, handle));
}

/** The account's agents without an owner name of their own: they show the account's name. */
export function agentsFollowingAccount(em: EntityManager, owner: User): Promise<Agent[]> {
  return em.find(Agent, { owner, ownerHandleOwn: false });
}

/** The website's owner-name field: the one edit it makes to an agent's claims. */
export async function setOwnerHandle(
  em: EntityManager,
  owner: User,
  agent: Agent,
  handle: string | null,
): Promise<void> {
  applyOwnerHandle(owner, agent, handle);
  await em.flush();
}

/** Applies an edit to the owner's agent; a new webhook or card URL is pinged at once (unless the agent is deactivated). */
export async function editAgent(
  em: EntityManager,
  deps: AgentLifecycleDeps,
  owner: User,
  agent: Agent,
  edit: AgentEdit,
  spendPing: SpendPing,
  log: FastifyBaseLogger,
): Promise<void> {
  let urlChanged = false;
  if (edit.webhook_url !== undefined) {
    // Well-formed, but not for this agent: a conflict with its mode, as a retest of a pull agent is.
    if (agent.mode !== 'push')
      throw new ArenaError('conflict', `${agent.mode} agents have no webhook_url; create a push agent instead`);
    const url = acceptWebhookUrl(edit.webhook_url, deps.ping.allowPrivateWebhooks);
    urlChanged = url !== agent.webhookUrl;
    // Refused before anything changes, so a refused edit keeps nothing.
    if (urlChanged && !agent.deactivated) await spendPing();
    agent.webhookUrl = url;
  }
  if (edit.agent_card_url !== undefined) {
    if (agent.mode !== 'a2a')
      throw new ArenaError('conflict', `${agent.mode} agents have no agent_card_url; create an a2a agent instead`);
    const url = acceptWebhookUrl(edit.agent_card_url, deps.ping.allowPrivateWebhooks, 'agent_card_url');
    urlChanged = url !== agent.agentCardUrl;
    if (urlChanged && !agent.deactivated) await spendPing();
    agent.agentCardUrl = url;
  }
  if (edit.name !== undefined) agent.name = edit.name;
  if (edit.owner_handle !== undefined) applyOwnerHandle(owner, agent, edit.owner_handle);
  if (edit.model_claimed !== undefined) agent.modelClaimed = edit.model_claimed;
  if (edit.cost_claimed !== undefined) agent.costClaimed = edit.cost_claimed;
  if (edit.tools_claimed !== undefined) agent.toolsClaimed = edit.tools_claimed;
  if (edit.description !== undefined) agent.description = edit.description;
  await em.flush();
  // Deactivation is permanent, so a deactivated agent's new URL is saved but not pinged.
  if (urlChanged && !agent.deactivated) {
    await pingAgent(agent, deps.ping);
    await em.flush();
    await startGymIfFirstActive(em, agent, deps.workflows, log);
  }
}

/** Pings a push or A2A agent again; a pass makes it active (and starts its gym the first time). */
export async function retestAgent(
  em: EntityManager,
  deps: AgentLifecycleDeps,
  agent: Agent,
  spendPing: SpendPing,
  log: FastifyBaseLogger,
): Promise<void> {
  // The request is well-formed; the agent's mode is what rules it out: a conflict with its state.
  if (!isCalledOut(agent.mode))
    throw new ArenaError('conflict', 'retest applies to push and a2a agents only; pull agents are never pinged');
  if (agent.deactivated) throw new ArenaError('conflict', DEACTIVATED);
  await spendPing();
  await pingAgent(agent, deps.ping);
  await em.flush();
  await startGymIfFirstActive(em, agent, deps.workflows, log);
}

/** Runs the gym again from the start; `spendRestart` refuses when the owner restarted too often. */
export async function restartGym(
  em: EntityManager,
  workflows: WorkflowDeps,
  agent: Agent,
  spendRestart: () => Promise<void>,
): Promise<void> {
  if (agent.deactivated) throw new ArenaError('conflict', DEACTIVATED);
  await spendRestart();
  await startGymAttempt(em, agent, workflows);
}
