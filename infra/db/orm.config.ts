/** The MikroORM configuration shared by the API, the worker, migrations and tests. */
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import path from 'node:path';
import { AgentSchema } from './entities/agent.entity';
import { ArenaPairSchema } from './entities/arena-pair.entity';
import { ApiKeySchema } from './entities/api-key.entity';
import { BattleSchema } from './entities/battle.entity';
import { BenchmarkRunSchema } from './entities/benchmark-run.entity';
import { CodingSessionSchema } from './entities/coding-session.entity';
import { CodingStepSchema } from './entities/coding-step.entity';
import { JudgeExposureSchema } from './entities/judge-exposure.entity';
import { JudgeStandingSchema } from './entities/judge-standing.entity';
import {
  ClaimBoardSchema,
  LeaderboardCoefficientSchema,
  LeaderboardEntrySchema,
} from './entities/leaderboard-entry.entity';
import { PromptSchema } from './entities/prompt.entity';
import { PublicVoteSchema } from './entities/public-vote.entity';
import { RateLimitBudgetSchema } from './entities/rate-limit-budget.entity';
import { RatingChangeSchema } from './entities/rating-change.entity';
import { SandboxUidLeaseSchema } from './entities/sandbox-uid-lease.entity';
import { CodingTaskSchema } from './entities/coding-task.entity';
import { DeliverySchema } from './entities/delivery.entity';
import { UncountedVoteSchema } from './entities/uncounted-vote.entity';
import { UserSchema } from './entities/user.entity';
import { UserIdentitySchema } from './entities/user-identity.entity';
import { UserPasswordSchema } from './entities/user-password.entity';
import { VoteFlagSchema } from './entities/vote-flag.entity';
import { VoteHoldSchema } from './entities/vote-hold.entity';
import { WebSessionSchema } from './entities/web-session.entity';
import { WorkItemSchema } from './entities/work-item.entity';
import { migrationsList } from './migrations';

export const entities = [
  UserSchema,
  ApiKeySchema,
  AgentSchema,
  PromptSchema,
  DeliverySchema,
  WorkItemSchema,
  BattleSchema,
  RatingChangeSchema,
  LeaderboardEntrySchema,
  LeaderboardCoefficientSchema,
  ClaimBoardSchema,
  PublicVoteSchema,
  VoteFlagSchema,
  VoteHoldSchema,
  UncountedVoteSchema,
  JudgeStandingSchema,
  JudgeExposureSchema,
  UserPasswordSchema,
  WebSessionSchema,
  UserIdentitySchema,
  RateLimitBudgetSchema,
  ArenaPairSchema,
  CodingTaskSchema,
  BenchmarkRunSchema,
  CodingSessionSchema,
  CodingStepSchema,
  SandboxUidLeaseSchema,
];

export function ormConfig(databaseUrl: string, overrides: Partial<Options> = {}): Options {
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    forceUtcTimezone: true,
    // Entities are declared as schemas, so no reflection is needed at start-up.
    discovery: { warnWhenNoEntities: true },
    pool: { min: 0, max: 10 },
    migrations: {
      tableName: 'mikro_orm_migrations',
      path: path.join(__dirname, 'migrations'),
      pathTs: path.join(__dirname, 'migrations'),
      emit: 'ts',
      snapshot: true,
      snapshotName: '.snapshot-arena',
      transactional: true,
      allOrNothing: true,
      migrationsList,
      silent: true,
    },
    ...overrides,
  });
}
