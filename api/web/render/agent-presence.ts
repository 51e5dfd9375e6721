/**
 * What an owner's pages say about whether an agent can answer now, what a pending answer waits
 * for, and why an action is unavailable: the same facts the API gives (`online`, `last_seen`,
 * `active`, `ping_error`), in sentences; and the agent's card on `/account`, built from them.
 */
import { isAgentActive, isAgentOnline, isCalledOut, type AgentMode } from '../../../domain/agent-state';
import { shownTier } from '../../../domain/ratings/tiers';
import { runCommand } from '../../../domain/runner-download';
import type { Agent } from '../../../infra/db/entities/agent.entity';
import { RUNNER_VERSION } from '../../../infra/runner-package';

export interface PresenceFacts {
  mode: AgentMode;
  deactivated: boolean;
  pingOk: boolean;
  pingError: string | null;
  consecutiveFailures: number;
  lastSeenAt: Date | null;
}

/** Online or not, and in a few words why; `lastSeen` is when the agent last showed it can answer. */
export interface Presence {
  online: boolean;
  /** "online", "offline" */
  label: string;
  /** Why it is offline and what brings it back; null when online or deactivated. */
  hint: string | null;
  lastSeen: Date | null;
}

export function presenceOf(agent: PresenceFacts, now: number = Date.now()): Presence {
  const online = isAgentOnline(agent, now);
  const lastSeen = agent.lastSeenAt;
  const base = { online, label: online ? 'online' : 'offline', lastSeen };
  if (online || agent.deactivated) return { ...base, hint: null };
  if (agent.mode === 'pull')
    return {
      ...base,
      hint: lastSeen
        ? 'No runner has polled for it in the last minute: its prompts wait until one does (or their deadline passes). Start its runner again.'
        : 'No runner has polled for it yet: its prompts wait until one does (or their deadline passes). Start its runner with its run command.',
    };
  if (!isAgentActive(agent))
    return { ...base, hint: 'Fix its endpoint, then retest: a passing ping makes it active and online.' };
  return {
    ...base,
    hint: 'Its last delivery failed: it is online again after a passing retest or a good answer.',
  };
}

/** What a pending delivery waits for, as its owner reads it (the public reads only that it waits). */
export function waitingFor(agent: PresenceFacts, now: number = Date.now()): string {
  if (agent.mode === 'pull')
    return isAgentOnline(agent, now)
      ? "Waiting for the agent's runner to answer."
      : 'Waiting for a runner: none has polled for this agent in the last minute, so the prompt waits until one does or its deadline passes.';
  return agent.mode === 'a2a'
    ? 'Sent to the A2A agent; waiting for its answer.'
    : "Sent to the agent's webhook; waiting for its answer.";
}

/**
 * Why the owner cannot send the agent anything now (a sandbox prompt, a coding session, a
 * benchmark), or null when they can. A pull agent takes prompts whether or not a runner polls: they
 * wait for one. The ping's own error is on the agent's state beside it.
 */
export function unavailableReason(agent: PresenceFacts): string | null {
  if (agent.deactivated) return 'The agent is deactivated.';
  if (!isAgentActive(agent))
    return 'Prompts, coding sessions and benchmarks are unavailable while the agent is inactive: retest it once its endpoint answers.';
  return null;
}

/** Whether the owner may ask for a retest: what `POST /api/agents/{id}/retest` allows. */
export function canRetest(agent: PresenceFacts): boolean {
  return isCalledOut(agent.mode) && !agent.deactivated;
}

function agentState(agent: PresenceFacts): string {
  if (agent.deactivated) return 'deactivated';
  if (isAgentActive(agent)) return 'active';
  return `inactive: ${agent.pingError ?? 'the last ping failed'}`;
}

/**
 * One agent's card on its owner's account page: its rating and state, whether it can answer now,
 * the actions open to the owner (or why not), and a pull agent's run command, which starts with
 * `base` (the arena's URL as the owner reached it).
 */
export function ownerAgentCard(agent: Agent, { rated, base, now }: { rated: boolean; base: string; now: number }) {
  return {
    id: agent.id,
    name: agent.name,
    mode: agent.mode,
    elo: agent.elo,
    tier: shownTier(agent.elo, rated),
    active: isAgentActive(agent),
    deactivated: agent.deactivated,
    state: agentState(agent),
    gymComplete: agent.gymComplete,
    ownerHandle: agent.ownerHandle,
    ownerHandleOwn: agent.ownerHandleOwn,
    presence: presenceOf(agent, now),
    unavailable: unavailableReason(agent),
    canRetest: canRetest(agent),
    runCommand: agent.mode === 'pull' && !agent.deactivated ? runCommand(base, agent.id, RUNNER_VERSION) : null,
  };
}
