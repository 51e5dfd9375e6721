/**
 * The leaderboard refit in a process of its own, so its time and peak memory are its own: reads
 * the voted battles as the refresh activity does, fits Bradley-Terry with 100 bootstrap resamples
 * (the activity's settings), and sends the timings to the bench.
 */
import { Pool } from 'pg';
import { fitLeaderboard } from '../../domain/ratings/bradley-terry';
import type { VoteOutcome } from '../../domain/ratings/elo';

export interface RefitReport {
  votes: number;
  agents: number;
  loadMs: number;
  fitMs: number;
  /** Peak resident memory of this process (votes loaded and fitted), MB. */
  maxRssMb: number;
}

async function main(): Promise<void> {
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 1 });
  const loadStarted = performance.now();
  const { rows } = await pool.query<{ agent_a_id: number; agent_b_id: number; winner: VoteOutcome }>(
    `select agent_a_id, agent_b_id, winner from battles where status = 'voted' order by id`,
  );
  await pool.end();
  const votes = rows.map((v) => ({ a: v.agent_a_id, b: v.agent_b_id, outcome: v.winner }));
  const loadMs = performance.now() - loadStarted;
  const fitStarted = performance.now();
  const entries = fitLeaderboard(votes, { resamples: 100, seed: 20261122 });
  const fitMs = performance.now() - fitStarted;
  const report: RefitReport = {
    votes: votes.length,
    agents: entries.length,
    loadMs,
    fitMs,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
  process.send?.(report, () => process.exit(0));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
