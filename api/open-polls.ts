/**
 * The long-polls open in this API process, each holding a socket: a few per agent (a new one
 * answers the oldest, as a runner that reconnects leaves its old poll behind) and a cap in all.
 */

interface OpenPoll {
  agentId: number;
  end: () => void;
}

export class OpenPolls {
  /** Per agent, oldest first (a Set iterates in insertion order). */
  private readonly byAgent = new Map<number, Set<OpenPoll>>();
  private count = 0;

  constructor(
    readonly perAgent: number,
    readonly perProcess: number,
  ) {}

  /**
   * Takes a poll in, first ending the agent's oldest if it has `perAgent` open (`end` answers it);
   * undefined when the process already holds `perProcess`. Call the result when the poll ends.
   */
  admit(agentId: number, end: () => void): (() => void) | undefined {
    const mine = this.byAgent.get(agentId);
    if (mine && mine.size >= this.perAgent) {
      const oldest = mine.values().next().value!;
      this.release(oldest);
      oldest.end();
    }
    if (this.count >= this.perProcess) return undefined;
    const poll: OpenPoll = { agentId, end };
    const set = this.byAgent.get(agentId) ?? new Set<OpenPoll>();
    this.byAgent.set(agentId, set);
    set.add(poll);
    this.count++;
    return () => this.release(poll);
  }

  /** Forgets a poll; a second call (an ended poll leaving) does nothing. */
  private release(poll: OpenPoll): void {
    const set = this.byAgent.get(poll.agentId);
    if (!set?.delete(poll)) return;
    this.count--;
    if (set.size === 0) this.byAgent.delete(poll.agentId);
  }
}
