/** The agent state rule: who is active, and what may change it. */
import { ArenaError } from './errors';

export type AgentMode = 'push' | 'pull';

export interface AgentStateFacts {
  mode: AgentMode;
  deactivated: boolean;
  pingOk: boolean;
}

/** Active = not deactivated by the owner, and either pull mode or the last ping passed. */
export function isAgentActive(agent: AgentStateFacts): boolean {
  return !agent.deactivated && (agent.mode === 'pull' || agent.pingOk);
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

/** The default public handle: the local part of the owner's email, else `agent-<user id>`. */
export function defaultOwnerHandle(owner: { id: number; email: string | null }): string {
  const local = owner.email?.split('@')[0]?.trim();
  return local ? local : `agent-${owner.id}`;
}

/** The profile's path, as the specification gives it: clients join it to the base URL they already use. */
export function profileUrl(agentId: number): string {
  return `/agents/${agentId}`;
}
