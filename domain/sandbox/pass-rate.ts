/**
 * An agent's coding record: every session that reached it counts as an attempt, whatever its end
 * (cancelled and timed out included), except an `error` that was the arena's own failure, which is
 * shown apart. The pass rate has a 95% Wilson interval; per task, pass@1 is the share of attempts
 * passed (the unbiased estimate of it from n attempts with c passes is c / n).
 */

/** What the database counts of an agent's coding sessions (or of one task's). */
export interface CodingCounts {
  attempted: number;
  passed: number;
  /** Ended as `error` through the arena's failure: not attempts. */
  arena_errors: number;
  /** Scored 0 because the run was tampered with (these are attempts, and failed). */
  tampered: number;
  /** Means over the attempts; null with none. */
  mean_steps: number | null;
  mean_seconds: number | null;
}

export interface CodingRecord extends CodingCounts {
  /** The pass rate's 95% interval, 0..1; null with no attempt. */
  ci_low: number | null;
  ci_high: number | null;
  /** The honesty record: the share of attempts found tampered with, 0..1; null with no attempt. */
  tampered_share: number | null;
  /** The share of the agent's ended sessions that ended by the arena's own failure, 0..1; null with none. */
  arena_error_share: number | null;
  /**
   * Whether that share is far above the arena's own (a binomial tail below 1 in 1,000 at the arena's
   * rate, and at least twice it): sessions that end by the arena's failure are not counted, so an
   * agent that makes them happen would hide its failures.
   */
  arena_errors_unusual: boolean;
}

/** How often coding sessions end by the arena's own failure, arena-wide: the yardstick for one agent's share. */
export interface ArenaFaultRate {
  faults: number;
  ended: number;
}

export const NO_CODING: CodingCounts = {
  attempted: 0,
  passed: 0,
  arena_errors: 0,
  tampered: 0,
  mean_steps: null,
  mean_seconds: null,
};

const Z95 = 1.959963984540054;
const round = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;

/**
 * Wilson's score interval: unlike the plain p ± z·√(p(1-p)/n) it has width at 0 of n and n of n,
 * and stays inside 0..1, so a handful of sessions does not look like a certainty.
 */
export function wilsonInterval(passed: number, attempted: number): { low: number; high: number } | null {
  if (attempted <= 0) return null;
  const p = passed / attempted;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * attempted)) / (1 + z2 / attempted);
  const half = (Z95 / (1 + z2 / attempted)) * Math.sqrt((p * (1 - p)) / attempted + z2 / (4 * attempted * attempted));
  return { low: round(Math.max(0, centre - half), 3), high: round(Math.min(1, centre + half), 3) };
}

export function codingRecord(counts: CodingCounts, arenaRate?: ArenaFaultRate): CodingRecord {
  const interval = wilsonInterval(counts.passed, counts.attempted);
  const ended = counts.attempted + counts.arena_errors;
  return {
    ...counts,
    mean_steps: counts.mean_steps === null ? null : round(counts.mean_steps, 1),
    mean_seconds: counts.mean_seconds === null ? null : round(counts.mean_seconds, 1),
    ci_low: interval?.low ?? null,
    ci_high: interval?.high ?? null,
    tampered_share: counts.attempted > 0 ? round(counts.tampered / counts.attempted, 3) : null,
    arena_error_share: ended > 0 ? round(counts.arena_errors / ended, 3) : null,
    arena_errors_unusual: arenaRate ? unusualArenaFaults(counts.arena_errors, ended, arenaRate) : false,
  };
}

/** P(X ≥ k) for X binomial(n, p), summed in log space. */
export function binomialTailAtLeast(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n || p <= 0) return 0;
  if (p >= 1) return 1;
  let logChoose = 0;
  for (let i = 1; i <= k; i++) logChoose += Math.log(n - k + i) - Math.log(i);
  let term = logChoose + k * Math.log(p) + (n - k) * Math.log(1 - p);
  let sum = Math.exp(term);
  for (let i = k + 1; i <= n; i++) {
    term += Math.log((n - i + 1) / i) + Math.log(p) - Math.log(1 - p);
    sum += Math.exp(term);
  }
  return Math.min(1, sum);
}

/**
 * Whether `faults` of an agent's `ended` sessions is far above what the arena's rate explains: at
 * least twice the rate, and a binomial tail below 1 in 1,000. The rate is the rest of the arena's
 * (`arena` counts the agent's own sessions too, and an agent whose own voided attempts set the rate
 * it is measured against would never look unusual), counted with one failure more than seen, so an
 * arena that has never failed does not make one failure unusual.
 */
export function unusualArenaFaults(faults: number, ended: number, arena: ArenaFaultRate): boolean {
  if (faults === 0 || ended === 0) return false;
  const others = { faults: Math.max(0, arena.faults - faults), ended: Math.max(0, arena.ended - ended) };
  const rate = (others.faults + 1) / (others.ended + 1);
  return faults / ended >= 2 * rate && binomialTailAtLeast(faults, ended, rate) < 0.001;
}

/** One task's line of an agent's record: its attempts, passes and pass@1. */
export interface TaskRecord extends CodingRecord {
  task: string;
  /** passed / attempted; null with no attempt. */
  pass_at_1: number | null;
}

export function taskRecord(task: string, counts: CodingCounts): TaskRecord {
  const record = codingRecord(counts);
  return { task, ...record, pass_at_1: counts.attempted > 0 ? round(counts.passed / counts.attempted, 3) : null };
}

/** One task's attempts and passes, as a suite's figure reads them. */
export interface TaskTally {
  attempted: number;
  passed: number;
}

/**
 * An agent's figure on one suite, read like the literature reads a HumanEval score: pass@1 is the
 * mean over the tasks attempted of each task's passed / attempted (the unbiased estimate from n
 * attempts with c passes), with a 95% Wilson interval over every attempt; pass@k for each k up to
 * the fewest attempts any of those tasks had (a benchmark run of k trials gives every task k).
 */
export interface SuiteRecord {
  suite: string;
  /** Active tasks in the suite now. */
  tasks: number;
  tasks_attempted: number;
  attempted: number;
  passed: number;
  pass_at_1: number | null;
  ci_low: number | null;
  ci_high: number | null;
  pass_at_k: Array<{ k: number; value: number }>;
}

/**
 * The unbiased estimator of pass@k from n attempts with c passes (Chen et al., 2021, "Evaluating
 * Large Language Models Trained on Code"): 1 - C(n - c, k) / C(n, k), as the product
 * 1 - Π_{i = n - c + 1}^{n} (1 - k / i), which stays exact where the binomials would overflow.
 */
export function passAtK(n: number, c: number, k: number): number {
  if (!(Number.isInteger(n) && Number.isInteger(c) && Number.isInteger(k)) || n < 1 || c < 0 || c > n || k < 1 || k > n)
    throw new RangeError(`pass@k needs 1 <= k <= n and 0 <= c <= n (n ${n}, c ${c}, k ${k})`);
  if (n - c < k) return 1;
  let none = 1;
  for (let i = n - c + 1; i <= n; i++) none *= 1 - k / i;
  return 1 - none;
}

/** Never pass@k past this k: benchmark runs make at most five trials of a task. */
const LARGEST_K = 5;

export function suiteRecord(suite: string, activeTasks: number, tallies: readonly TaskTally[]): SuiteRecord {
  const tried = tallies.filter((t) => t.attempted > 0);
  const attempted = tried.reduce((sum, t) => sum + t.attempted, 0);
  const passed = tried.reduce((sum, t) => sum + t.passed, 0);
  const interval = wilsonInterval(passed, attempted);
  const mean = (k: number) => tried.reduce((sum, t) => sum + passAtK(t.attempted, t.passed, k), 0) / tried.length;
  const fewest = tried.length === 0 ? 0 : Math.min(LARGEST_K, ...tried.map((t) => t.attempted));
  return {
    suite,
    tasks: activeTasks,
    tasks_attempted: tried.length,
    attempted,
    passed,
    pass_at_1: tried.length === 0 ? null : round(mean(1), 3),
    ci_low: interval?.low ?? null,
    ci_high: interval?.high ?? null,
    pass_at_k: Array.from({ length: Math.max(0, fewest - 1) }, (_, i) => ({ k: i + 2, value: round(mean(i + 2), 3) })),
  };
}
