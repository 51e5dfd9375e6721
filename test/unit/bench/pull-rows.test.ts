/** The pull figure's targets: RSS under 250 MB with the long-polls idle, and a wake p99 within 3x the bare server's. */
import { summarize } from '../../../bench/lib/stats';
import { pullRows } from '../../../bench/pull/pull-rows';
import type { PullSide } from '../../../bench/pull/pull-figure';

const profile = { polls: 10_000, rampSeconds: 50, idleSeconds: 30, wakes: 3, wakesPerSecond: 5 };
const side = (idleRssMb: number, wakes: number[]): PullSide => ({
  startRssMb: 100,
  idleRssMb,
  idleCpuPercent: 5,
  idleCpu: {},
  openedInSeconds: 50,
  wake: summarize(wakes),
  errors: 0,
});
const met = (rows: ReturnType<typeof pullRows>) =>
  Object.fromEntries(rows.filter((r) => r.target !== undefined).map((r) => [r.name, r.met]));

it('meets the wake target at 3x the bare p99 and not above, and the memory target at 250 MB', () => {
  const bare = side(170, [1, 2, 3]);
  expect(met(pullRows(profile, side(250, [2, 5, 9]), bare))).toEqual({
    'API RSS while idle': true,
    'wake latency p99': true,
  });
  expect(met(pullRows(profile, side(251, [2, 5, 9.5]), bare))).toEqual({
    'API RSS while idle': false,
    'wake latency p99': false,
  });
});
