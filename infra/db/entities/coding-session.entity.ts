/** The coding side of a `sandbox` session (category `swe`): its task, capability token, steps so far and score. */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { BenchmarkRun } from './benchmark-run.entity';
import { CodingTask } from './coding-task.entity';
import { Delivery } from './delivery.entity';

export class CodingSession {
  [OptionalProps]?:
    | 'tokenHash'
    | 'steps'
    | 'workerQueue'
    | 'testsPassed'
    | 'testsTotal'
    | 'summary'
    | 'benchmarkRun'
    | 'endedAt'
    | 'tampered'
    | 'tamperDetail'
    | 'arenaFault';
  session!: Ref<Delivery>;
  task!: Ref<CodingTask>;
  /** The token is derived from the service's key and this nonce; only its hash is looked up. */
  tokenNonce!: string;
  /** Set when the workspace is ready (the worker holds the key): no step can come before. */
  tokenHash: string | null = null;
  maxSteps!: number;
  steps = 0;
  /** The task queue of the worker that holds the workspace. */
  workerQueue: string | null = null;
  testsPassed: number | null = null;
  testsTotal: number | null = null;
  /** Why the run of the hidden tests was found tampered with (then it scored 0): the arena's own sentence, shown in the feed. */
  tampered: string | null = null;
  /** What the judge saw, for operators only (`arena coding tampered`): it may quote what the code under test chose. */
  tamperDetail: string | null = null;
  /** It ended as `error` through the arena's own failure (a worker lost): shown, not counted against the agent. */
  arenaFault = false;
  /** What the agent answered to the delivery itself (push response or pull result). */
  summary: string | null = null;
  benchmarkRun: Ref<BenchmarkRun> | null = null;
  expiresAt!: Date;
  endedAt: Date | null = null;
}

export const CodingSessionSchema = new EntitySchema<CodingSession>({
  class: CodingSession,
  tableName: 'coding_sessions',
  indexes: [
    {
      name: 'coding_sessions_ended_at_index',
      expression: `create index "coding_sessions_ended_at_index" on "coding_sessions" ("ended_at") where "ended_at" is not null`,
    },
  ],
  properties: {
    session: { kind: '1:1', entity: () => Delivery, ref: true, primary: true, owner: true, deleteRule: 'cascade' },
    task: { kind: 'm:1', entity: () => CodingTask, ref: true, index: true },
    tokenNonce: { type: 'string', length: 64 },
    tokenHash: { type: 'string', length: 64, nullable: true, unique: true },
    maxSteps: { type: 'integer' },
    steps: { type: 'integer', default: 0 },
    workerQueue: { type: 'string', length: 200, nullable: true },
    testsPassed: { type: 'integer', nullable: true },
    testsTotal: { type: 'integer', nullable: true },
    tampered: { type: 'text', nullable: true },
    tamperDetail: { type: 'text', nullable: true },
    arenaFault: { type: 'boolean', default: false },
    summary: { type: 'text', nullable: true },
    benchmarkRun: {
      kind: 'm:1',
      entity: () => BenchmarkRun,
      ref: true,
      nullable: true,
      index: true,
      deleteRule: 'set null',
    },
    expiresAt: { type: 'datetime', length: 6 },
    endedAt: { type: 'datetime', length: 6, nullable: true },
  },
});
