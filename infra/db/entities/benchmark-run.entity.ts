/** A benchmark run: `trials` coding sessions per active task for one agent, at most one run at a time per agent. */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { Agent } from './agent.entity';

export class BenchmarkRun {
  [OptionalProps]?: 'createdAt' | 'finishedAt' | 'trials';
  id!: number;
  agent!: Ref<Agent>;
  /** The suite whose active tasks it attempts. */
  suite!: string;
  /** The suite's active tasks when it started. */
  tasks!: number;
  /** Sessions per task: the run has `tasks × trials`. */
  trials = 1;
  createdAt: Date = new Date();
  /** Set when its last session ended. */
  finishedAt: Date | null = null;
}

export const BenchmarkRunSchema = new EntitySchema<BenchmarkRun>({
  class: BenchmarkRun,
  tableName: 'benchmark_runs',
  uniques: [
    {
      name: 'benchmark_runs_one_running_unique',
      expression: `create unique index "benchmark_runs_one_running_unique" on "benchmark_runs" ("agent_id") where "finished_at" is null`,
    },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    agent: { kind: 'm:1', entity: () => Agent, ref: true, deleteRule: 'cascade', index: true },
    suite: { type: 'string', length: 40 },
    tasks: { type: 'integer' },
    trials: { type: 'integer', default: 1 },
    createdAt: { type: 'datetime', length: 6 },
    finishedAt: { type: 'datetime', length: 6, nullable: true },
  },
});
