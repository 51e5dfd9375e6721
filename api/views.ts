/** Entities to response bodies: the one place that decides which fields leave the service. */
import type { z } from 'zod';
import type { Agent } from '../infra/db/entities/agent.entity';
import type { User } from '../infra/db/entities/user.entity';
import { isAgentActive, profileUrl, runCommand } from '../domain/agent-state';
import { formatTimestamp } from '../domain/timestamps';
import type { account, agentSummary } from './schemas/account';
import type { agentDetail, agentListItem, gymProgress } from './schemas/agent';
import type { activitySession } from './schemas/session';
import type { publicUser, publicUserEntry } from './schemas/user';
import type { GymCounts, SessionRow } from '../infra/db/repositories/session-queries';
import { sessionPublicId } from '../domain/sessions';

export function agentSummaryView(agent: Agent): z.infer<typeof agentSummary> {
  return { id: agent.id, name: agent.name, active: isAgentActive(agent), elo: agent.elo, gym_complete: agent.gymComplete };
}

export function accountView(user: User, agents: Agent[]): z.infer<typeof account> {
  return {
    id: user.id,
    username: user.username,
    display_name: user.displayName,
    email: user.email,
    bio: user.bio,
    created_at: formatTimestamp(user.createdAt),
    agent_count: agents.length,
    agents: agents.map(agentSummaryView),
  };
}

export function agentListView(agent: Agent): z.infer<typeof agentListItem> {
  return {
    id: agent.id,
    name: agent.name,
    mode: agent.mode,
    ...(agent.mode === 'push' && agent.webhookUrl ? { webhook_url: agent.webhookUrl } : {}),
    active: isAgentActive(agent),
    ping_error: agent.pingError,
    elo: agent.elo,
    model_claimed: agent.modelClaimed,
    created_at: formatTimestamp(agent.createdAt),
    gym_complete: agent.gymComplete,
  };
}

export function gymView(agent: Agent, counts: GymCounts): z.infer<typeof gymProgress> {
  return {
    ...counts,
    gym_complete: agent.gymComplete,
    started_at: agent.gymStartedAt ? formatTimestamp(agent.gymStartedAt) : null,
    completed_at: agent.gymCompletedAt ? formatTimestamp(agent.gymCompletedAt) : null,
  };
}

export function agentDetailView(agent: Agent, publicUrl: string, gym: GymCounts): z.infer<typeof agentDetail> {
  return {
    ...agentListView(agent),
    owner_handle: agent.ownerHandle,
    cost_claimed: agent.costClaimed,
    tools_claimed: agent.toolsClaimed,
    description: agent.description,
    profile_url: profileUrl(agent.id),
    ...(agent.mode === 'pull' ? { run_command: runCommand(publicUrl, agent.id) } : {}),
    gym: gymView(agent, gym),
  };
}

export function publicUserEntryView(user: User, agentCount: number): z.infer<typeof publicUserEntry> {
  return {
    id: user.id,
    username: user.username,
    display_name: user.displayName,
    bio: user.bio,
    agent_count: agentCount,
    created_at: formatTimestamp(user.createdAt),
  };
}

export function publicUserView(user: User, agents: Agent[]): z.infer<typeof publicUser> {
  return {
    ...publicUserEntryView(user, agents.length),
    agents: agents.map((a) => ({ ...agentSummaryView(a), profile_url: profileUrl(a.id) })),
  };
}

/** A feed entry; the agent's owner (`forOwner`) also reads the detail of a failure. */
export function sessionView(row: SessionRow, forOwner = false): z.infer<typeof activitySession> {
  return {
    id: sessionPublicId(row.kind, row.id),
    kind: row.kind,
    category: row.category,
    prompt: row.prompt,
    response: row.response,
    error: forOwner ? (row.error_detail ?? row.error) : row.error,
    latency_ms: row.latency_ms ?? 0,
    status: row.status,
    created_at: formatTimestamp(new Date(row.created_ms)),
    redelivery_of: row.redelivery_of_id === null ? null : sessionPublicId(row.kind, row.redelivery_of_id),
  };
}
