/** Agents and their deliveries to response bodies: the one place that decides which of their fields leave the service. */
import type { z } from 'zod';
import type { Agent } from '../../infra/db/entities/agent.entity';
import type { GymCounts, DeliveryRow } from '../../infra/db/repositories/delivery-read.repository';
import {
  isAgentActive,
  isAgentOnline,
  ownerHandleNote,
  profileUrl,
  type AccountNameFacts,
} from '../../domain/agent-state';
import { runCommand } from '../../domain/runner-download';
import { RUNNER_VERSION } from '../../infra/runner-package';
import { deliveryPublicId } from '../../domain/deliveries';
import { formatTimestamp } from '../../domain/timestamps';
import type { agentSummary } from '../schemas/account';
import type { agentCreated, agentDetail, agentListItem, gymProgress } from '../schemas/agent';
import type { activityDelivery } from '../schemas/delivery';

/** Where the arena calls the agent: a push agent's webhook, an A2A agent's card. */
function agentAddress(agent: Agent): { webhook_url?: string; agent_card_url?: string } {
  if (agent.mode === 'push' && agent.webhookUrl) return { webhook_url: agent.webhookUrl };
  if (agent.mode === 'a2a' && agent.agentCardUrl) return { agent_card_url: agent.agentCardUrl };
  return {};
}

export function agentSummaryJson(agent: Agent): z.infer<typeof agentSummary> {
  return {
    id: agent.id,
    name: agent.name,
    active: isAgentActive(agent),
    elo: agent.elo,
    gym_complete: agent.gymComplete,
  };
}

export function agentListItemJson(agent: Agent): z.infer<typeof agentListItem> {
  return {
    id: agent.id,
    name: agent.name,
    mode: agent.mode,
    ...agentAddress(agent),
    active: isAgentActive(agent),
    online: isAgentOnline(agent),
    last_seen: agent.lastSeenAt ? formatTimestamp(agent.lastSeenAt) : null,
    ping_error: agent.pingError,
    elo: agent.elo,
    model_claimed: agent.modelClaimed,
    created_at: formatTimestamp(agent.createdAt),
    gym_complete: agent.gymComplete,
  };
}

export function gymProgressJson(agent: Agent, counts: GymCounts): z.infer<typeof gymProgress> {
  return {
    ...counts,
    gym_complete: agent.gymComplete,
    started_at: agent.gymStartedAt ? formatTimestamp(agent.gymStartedAt) : null,
    completed_at: agent.gymCompletedAt ? formatTimestamp(agent.gymCompletedAt) : null,
  };
}

export function agentDetailJson(agent: Agent, publicUrl: string, gym: GymCounts): z.infer<typeof agentDetail> {
  return {
    ...agentListItemJson(agent),
    owner_handle: agent.ownerHandle,
    cost_claimed: agent.costClaimed,
    tools_claimed: agent.toolsClaimed,
    description: agent.description,
    profile_url: profileUrl(agent.id),
    ...(agent.mode === 'pull' ? { run_command: runCommand(publicUrl, agent.id, RUNNER_VERSION) } : {}),
    gym: gymProgressJson(agent, gym),
  };
}

/** A new agent, with its secret shown this once, and the public owner name it shows. */
export function agentCreatedJson(
  agent: Agent,
  secret: string,
  publicUrl: string,
  owner: AccountNameFacts,
): z.infer<typeof agentCreated> {
  return {
    id: agent.id,
    name: agent.name,
    mode: agent.mode,
    owner_handle: agent.ownerHandle,
    owner_handle_note: ownerHandleNote(agent, owner),
    ...agentAddress(agent),
    active: isAgentActive(agent),
    ping_error: agent.pingError,
    webhook_secret: secret,
    profile_url: profileUrl(agent.id),
    ...(agent.mode === 'pull' ? { run_command: runCommand(publicUrl, agent.id, RUNNER_VERSION) } : {}),
  };
}

/**
 * A feed entry. The public feed never holds an arena answer in judging (the repository leaves it
 * out whole); its text is withheld here as well, from everyone but the owner (`forOwner`), should
 * another caller map such a row. The owner also reads the detail of a failure.
 */
export function deliveryJson(row: DeliveryRow, forOwner = false): z.infer<typeof activityDelivery> {
  return {
    id: deliveryPublicId(row.kind, row.id),
    kind: row.kind,
    category: row.category,
    prompt: row.prompt,
    response: row.in_judging && !forOwner ? null : row.response,
    in_judging: row.in_judging,
    error: forOwner ? (row.error_detail ?? row.error) : row.error,
    latency_ms: row.latency_ms ?? 0,
    status: row.status,
    created_at: formatTimestamp(new Date(row.created_ms)),
    redelivery_of: row.redelivery_of_id === null ? null : deliveryPublicId(row.kind, row.redelivery_of_id),
  };
}
