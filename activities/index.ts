/** Every activity the worker runs: all side effects of the workflows (webhook calls, database writes). */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ArenaSettings } from '../infra/config';
import type { WebhookClient } from '../infra/webhook/client';
import { arenaActivities } from './arena';
import { deliveryActivities } from './deliveries';
import { gymActivities } from './gym';
import { leaderboardActivities } from './leaderboard';
import { liveBattleActivities } from './live-battles';
import { voteActivities } from './votes';

export interface ActivityDeps {
  orm: MikroORM;
  webhooks: WebhookClient;
  encryptionKey: Buffer;
  arena: ArenaSettings;
}

export function createActivities(deps: ActivityDeps) {
  return {
    ...deliveryActivities(deps),
    ...gymActivities(deps),
    ...arenaActivities(deps),
    ...voteActivities(deps),
    ...liveBattleActivities(deps),
    ...leaderboardActivities(deps),
  };
}
