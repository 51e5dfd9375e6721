/**
 * The long-polls open in this API process, each holding a socket: a few per agent (a new one
 * answers the oldest, as a runner that reconnects leaves its old poll behind) and a cap in all.
 */

export interface OpenPoll {
  readonly agentId: number;
  /** Answers the poll: called when a newer one of its agent pushes it out. */
  end(): void;
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
   * Takes a poll in, first ending the agent's oldest if it has `perAgent` open; false when the
   * process already holds `perProcess`. Release it when it ends.
   */
  admit(poll: OpenPoll): boolean {
    const mine = this.byAgent.get(poll.agentId);
    if (mine && mine.size >= this.perAgent) {
      const oldest = mine.values().next().value!;
      this.release(oldest);
      oldest.end();
    }
    if (this.count >= this.perProcess) return false;
    const set = mine ?? new Set<OpenPoll>();
    this.byAgent.set(poll.agentId, set);
    set.add(poll);
    this.count++;
    return true;
  }

  /** Ends every poll (the API begins to shut down); each is released as it answers. */
  endAll(): void {
    for (const set of this.byAgent.values()) for (const poll of set) poll.end();
  }

  /** Forgets a poll; a second call (an ended poll leaving) does nothing. */
  release(poll: OpenPoll): void {
    const set = this.byAgent.get(poll.agentId);
    if (!set?.delete(poll)) return;
    this.count--;
    if (set.size === 0) this.byAgent.delete(poll.agentId);
  }
}
