/** How big each figure's run is: the full run the figures are quoted from, and a quick one that fits in two minutes. */

export interface BenchProfile {
  name: 'quick' | 'full';
  push: {
    agents: number;
    /** Offered rates; the arena stops at the first it cannot keep up with. */
    rates: number[];
    /** The baselines run every rate the arena ran, then these higher ones until they stop keeping up. */
    engineExtra: number[];
    bareExtra: number[];
    stageSeconds: number;
  };
  pull: {
    polls: number;
    /**
     * Seconds over which the long-polls are opened, evenly: independent runners do not start in
     * the same second. Each poll waits 50 s and then polls again, so over the full run's 50 s the
     * renewals are as even as independent runners' (10,000 / 50 s = 200 a second); polls opened
     * together would renew together, in bursts, for as long as they run.
     */
    rampSeconds: number;
    idleSeconds: number;
    wakes: number;
    /**
     * Each wake is a whole pull delivery (sandbox request, workflow, queued work, result); at 5/s
     * that is about a quarter of what the push figure finds this machine sustains, so the wake
     * latency is the wake path's own, not the wait of a queue on a saturated machine (at 25/s it
     * was mostly that).
     */
    wakesPerSecond: number;
  };
  deadlines: {
    deliveries: number;
    /** The most deliveries are offered at; less when the push figure found the stack sustains less (half of that). */
    rate: number;
    /** ...but never below this. */
    minRate: number;
    deadlineSeconds: number;
    agents: number;
  };
  reads: {
    connections: number;
    seconds: number;
    feedSessions: number;
  };
  scale: {
    agents: number;
    owners: number;
    prompts: number;
    /** Main answers in the database at each measurement; as many votes as answers. */
    answerSteps: number[];
    /** Concurrent judges; each takes its next battle, votes on it, and again, this many rounds. */
    judges: number;
    judgeRounds: number;
    /** The old judge/next query is run this many times per size, one at a time... */
    baselineCalls: number;
    /** ...and no more at a size (or any larger) once one call took longer than this. */
    baselineLimitSeconds: number;
    /** Agents made due for the dispatch step measured at each size. */
    dueAgents: number;
    /** The refit runs in a child process stopped after this long, or once its RSS passes refitMaxRssMb. */
    refitTimeoutSeconds: number;
    refitMaxRssMb: number;
  };
  boards: {
    /** Synthetic votes and agents every board is fitted over; the closed form is stopped after timeoutSeconds, the bootstrap after ten times that. */
    votes: number;
    agents: number;
    timeoutSeconds: number;
  };
  humaneval: {
    /** HumanEval problems the scripted agent solves (the first ones by number; 164 is the whole suite). */
    problems: number;
    /** Sessions at once: the account's default cap of live coding sessions. */
    concurrency: number;
  };
  sandbox: {
    /** exec steps of one session one after another, and as many bare isolated spawns. */
    steps: number;
    /** Sessions at once on two workers, each taking this many steps, first `thinkMs` apart, then back to back. */
    sessions: number;
    concurrentSteps: number;
    thinkMs: number;
  };
  protocols: {
    /** Deliveries one at a time to each of a push agent and two A2A agents. */
    deliveries: number;
    /** exec steps of one coding session one at a time, over REST and over MCP. */
    steps: number;
  };
}

export const FULL: BenchProfile = {
  name: 'full',
  push: {
    agents: 8,
    rates: [10, 20, 40, 60, 80, 100, 150, 200, 300, 400, 600],
    engineExtra: [20, 40, 60, 80, 100, 150, 200, 300, 400, 600, 800, 1200, 1600],
    bareExtra: [100, 200, 400, 800, 1600, 3200, 6400],
    stageSeconds: 8,
  },
  pull: { polls: 10_000, rampSeconds: 50, idleSeconds: 30, wakes: 200, wakesPerSecond: 5 },
  deadlines: { deliveries: 1_000, rate: 100, minRate: 10, deadlineSeconds: 2, agents: 10 },
  reads: { connections: 64, seconds: 15, feedSessions: 100 },
  scale: {
    agents: 10_000,
    owners: 5_000,
    prompts: 200,
    answerSteps: [10_000, 100_000, 1_000_000],
    judges: 16,
    judgeRounds: 20,
    baselineCalls: 20,
    baselineLimitSeconds: 10,
    dueAgents: 10_000,
    refitTimeoutSeconds: 900,
    refitMaxRssMb: 4_096,
  },
  boards: { votes: 1_000_000, agents: 10_000, timeoutSeconds: 120 },
  sandbox: { steps: 100, sessions: 20, concurrentSteps: 10, thinkMs: 2_000 },
  humaneval: { problems: 164, concurrency: 4 },
  protocols: { deliveries: 50, steps: 50 },
};

export const QUICK: BenchProfile = {
  name: 'quick',
  push: {
    agents: 8,
    rates: [10, 20, 40, 80, 160, 320],
    engineExtra: [20, 40, 80, 160, 320, 640],
    bareExtra: [1600, 6400],
    stageSeconds: 2,
  },
  pull: { polls: 2_000, rampSeconds: 4, idleSeconds: 4, wakes: 20, wakesPerSecond: 5 },
  deadlines: { deliveries: 60, rate: 100, minRate: 20, deadlineSeconds: 2, agents: 10 },
  reads: { connections: 64, seconds: 3, feedSessions: 100 },
  scale: {
    agents: 10_000,
    owners: 5_000,
    prompts: 200,
    answerSteps: [10_000, 50_000],
    judges: 16,
    judgeRounds: 5,
    baselineCalls: 5,
    baselineLimitSeconds: 10,
    dueAgents: 10_000,
    refitTimeoutSeconds: 120,
    refitMaxRssMb: 4_096,
  },
  boards: { votes: 50_000, agents: 1_000, timeoutSeconds: 60 },
  sandbox: { steps: 30, sessions: 20, concurrentSteps: 3, thinkMs: 2_000 },
  humaneval: { problems: 24, concurrency: 4 },
  protocols: { deliveries: 15, steps: 20 },
};
