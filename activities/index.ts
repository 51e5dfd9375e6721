/** Every activity the worker runs: all side effects of the workflows (webhook calls, database writes). */
import { arenaActivities } from './arena';
import { codingSessionActivities } from './coding-sessions';
import { deliveryActivities } from './deliveries';
import { gymActivities } from './gym';
import { leaderboardActivities } from './leaderboard';
import { liveBattleActivities } from './live-battles';
import { outcomeActivities } from './record-outcome';
import { voteActivities } from './votes';
import type { ActivityDeps } from './deps';

export function createActivities(deps: ActivityDeps) {
  return {
    ...deliveryActivities(deps),
    ...outcomeActivities(deps),
    ...gymActivities(deps),
    ...arenaActivities(deps),
    ...voteActivities(deps),
    ...liveBattleActivities(deps),
    ...leaderboardActivities(deps),
    ...codingSessionActivities(deps),
  };
}
