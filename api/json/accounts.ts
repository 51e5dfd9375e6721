/** Accounts, users and API keys to response bodies: never a password, a key or its hash, and an email only to its owner. */
import type { z } from 'zod';
import type { Agent } from '../../infra/db/entities/agent.entity';
import type { ApiKey } from '../../infra/db/entities/api-key.entity';
import type { User } from '../../infra/db/entities/user.entity';
import { profileUrl } from '../../domain/agent-state';
import { formatNullableTimestamp, formatTimestamp } from '../../domain/timestamps';
import type { account } from '../schemas/account';
import type { apiKeyEntry } from '../schemas/api-key';
import type { publicUser, publicUserEntry } from '../schemas/user';
import { agentSummaryJson } from './agents';

export function accountJson(user: User, agents: Agent[]): z.infer<typeof account> {
  return {
    id: user.id,
    username: user.username,
    display_name: user.displayName,
    email: user.email,
    bio: user.bio,
    created_at: formatTimestamp(user.createdAt),
    agent_count: agents.length,
    agents: agents.map(agentSummaryJson),
  };
}

export function publicUserEntryJson(user: User, agentCount: number): z.infer<typeof publicUserEntry> {
  return {
    id: user.id,
    username: user.username,
    display_name: user.displayName,
    bio: user.bio,
    agent_count: agentCount,
    created_at: formatTimestamp(user.createdAt),
  };
}

export function publicUserJson(user: User, agents: Agent[]): z.infer<typeof publicUser> {
  return {
    ...publicUserEntryJson(user, agents.length),
    agents: agents.map((a) => ({ ...agentSummaryJson(a), profile_url: profileUrl(a.id) })),
  };
}

/** A key as its owner sees it in a list: never the key, never its hash. */
export function apiKeyJson(key: ApiKey): z.infer<typeof apiKeyEntry> {
  return {
    id: key.id,
    prefix: key.keyPrefix,
    created_at: formatTimestamp(key.createdAt),
    last_used_at: formatNullableTimestamp(key.lastUsedAt),
  };
}
