/** Every activity the worker runs: all side effects of the workflows (webhook calls, database writes). */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ArenaSettings } from '../infra/config';
import type { WebhookClient } from '../infra/webhook/client';
import type { SandboxRuntime } from '../infra/sandbox/runtime';
import { arenaActivities } from './arena';
import { codingSessionActivities } from './coding-sessions';
import { deliveryActivities } from './deliveries';
import { gymActivities } from './gym';
import { leaderboardActivities } from './leaderboard';
import { liveBattleActivities } from './live-battles';
import { outcomeActivities } from './record-outcome';
import { voteActivities } from './votes';

export interface ActivityDeps {
  orm: MikroORM;
  webhooks: WebhookClient;
  encryptionKey: Buffer;
  arena: ArenaSettings;
  /** Where agents reach this service: a coding session's prompt names its step API under it. */
  publicUrl: string;
  /** This worker's coding sandbox: its workspaces and its own task queue. */
  sandbox: SandboxRuntime;
}

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
