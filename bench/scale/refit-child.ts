/**
 * The leaderboard refresh in a process of its own, so its time and peak memory are its own: the
 * worker's refresh activity itself (outlier judges over every cast vote, the published votes read,
 * every board fitted in its thread, raw and controlled for style, with intervals in closed form,
 * and the boards written), and sends the timings to the bench.
 */
import { MikroORM } from '@mikro-orm/postgresql';
import { MockActivityEnvironment } from '@temporalio/testing';
import { leaderboardActivities, type LeaderboardSummary } from '../../activities/leaderboard';
import { loadConfig, requireRuntime } from '../../infra/config';
import { ormConfig } from '../../infra/db/orm.config';

export interface RefitReport {
  /** Votes the boards counted, and agents on the overall board. */
  votes: number;
  agents: number;
  /** The boards written: overall and per category, each raw and controlled. */
  boards: number;
  refreshMs: number;
  /** Peak resident memory of this process (its fit thread included), MB. */
  maxRssMb: number;
}

async function main(): Promise<void> {
  const config = requireRuntime(loadConfig(process.env), ['database']);
  const orm = await MikroORM.init(ormConfig(config.databaseUrl, { debug: false }));
  try {
    const started = performance.now();
    // As the worker runs it, in an activity's context (it heartbeats).
    const refresh = leaderboardActivities({ orm, arena: config.arena }).refreshLeaderboard;
    const summary: LeaderboardSummary = await new MockActivityEnvironment().run(refresh);
    const refreshMs = performance.now() - started;
    const [written] = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ boards: number }>>(
        `select count(distinct (board, style_control))::int as boards from leaderboard_entries`,
      );
    const report: RefitReport = {
      votes: summary.votes,
      agents: summary.agents,
      boards: written?.boards ?? 0,
      refreshMs,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
    };
    process.send?.(report, () => process.exit(0));
  } finally {
    await orm.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
