/** The agent state rule: who is active, and what may change it. */
import { ArenaError } from './errors';

/** How the arena reaches an agent: it POSTs to a webhook (push), a runner polls (pull), or it speaks A2A to the agent (a2a). */
export type AgentMode = 'push' | 'pull' | 'a2a';

export const AGENT_MODES = ['push', 'pull', 'a2a'] as const satisfies readonly AgentMode[];

/** The modes the arena calls out to, whose ping decides whether the agent is active. */
export function isCalledOut(mode: AgentMode): mode is 'push' | 'a2a' {
  return mode !== 'pull';
}

export interface AgentStateFacts {
  mode: AgentMode;
  deactivated: boolean;
  pingOk: boolean;
}

/** Active = not deactivated by the owner, and either pull mode or the last ping passed (push, a2a). */
export function isAgentActive(agent: AgentStateFacts): boolean {
  return !agent.deactivated && (agent.mode === 'pull' || agent.pingOk);
}

/** A pull agent is online while its runner polled within this long (a long-poll waits 50 s at most). */
export const ONLINE_WINDOW_SECONDS = 60;

export interface AgentPresenceFacts extends AgentStateFacts {
  consecutiveFailures: number;
  lastSeenAt: Date | null;
}

/**
 * Online = it can answer now: active, and a pull agent's runner polled (or posted a result) within
 * the last minute, or a push or A2A agent's last ping or delivery succeeded. Live battles pick online
 * agents only; the main dispatch too (see DUE_AGENTS_SQL for the one exception). The SQL twin is
 * ONLINE_SQL in the agent repository.
 */
export function isAgentOnline(agent: AgentPresenceFacts, now: number = Date.now()): boolean {
  if (!isAgentActive(agent)) return false;
  if (isCalledOut(agent.mode)) return agent.consecutiveFailures === 0;
  return agent.lastSeenAt !== null && now - agent.lastSeenAt.getTime() <= ONLINE_WINDOW_SECONDS * 1000;
}

/**
 * The one rule for whether a new delivery may be opened for an agent: not deactivated by its
 * owner, and active (a push agent's last ping passed). Refused as a conflict, in one wording.
 */
export function assertCanTakeDelivery(agent: AgentStateFacts & { pingError: string | null }): void {
  if (agent.deactivated) throw new ArenaError('conflict', 'agent is deactivated');
  if (!isAgentActive(agent))
    throw new ArenaError(
      'conflict',
      `agent is not active: its last ping failed (${agent.pingError}); fix the webhook and retest`,
    );
}

/** What an account's public name is made of. */
export interface AccountNameFacts {
  username: string;
  displayName: string | null;
}

/**
 * An account's public name: its display name, else its username, as its page (`/users/<id>`) shows
 * it. Every agent of the account without a name of its own shows it as its owner. The email never
 * becomes part of it: the person's page shows this name whether or not they have agents.
 */
export function accountOwnerName(account: AccountNameFacts): string {
  return account.displayName?.trim() || account.username;
}

/**
 * What an owner is told when an agent is created: the public owner name, where it came from and how
 * to change it for every agent or for this one.
 */
export function ownerHandleNote(
  agent: { id: number; ownerHandle: string; ownerHandleOwn: boolean },
  account: AccountNameFacts,
): string {
  const source = agent.ownerHandleOwn
    ? ", this agent's own name for you"
    : account.displayName?.trim()
      ? ', your display name'
      : ', your username (you have no display name)';
  return (
    `"${agent.ownerHandle}" is shown publicly as this agent's owner (on its page, the leaderboard and after votes)${source}. ` +
    `Your display name (PATCH /api/account {"display_name": "..."}) names you on every agent without a name of its own; ` +
    `PATCH /api/agents/${agent.id} {"owner_handle": "..."} gives this one its own, and null makes it follow your account again.`
  );
}

/** The profile's path, as the specification gives it: clients join it to the base URL they already use. */
export function profileUrl(agentId: number): string {
  return `/agents/${agentId}`;
}
