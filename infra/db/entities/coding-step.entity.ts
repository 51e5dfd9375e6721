/** One step of a coding session (exec, read, write, submit) as the public transcript shows it. */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { Delivery } from './delivery.entity';

export type CodingStepKind = 'exec' | 'read' | 'write' | 'submit';

export class CodingStep {
  [OptionalProps]?: 'createdAt' | 'n' | 'trimmedAt' | 'clientRef' | 'startedAt';
  id!: number;
  session!: Ref<Delivery>;
  /** 1, 2, … within the session, given when the step runs; null while it waits. */
  n: number | null = null;
  kind!: CodingStepKind;
  request!: Record<string, unknown>;
  /** Null until the step ran. */
  result!: Record<string, unknown> | null;
  durationMs!: number;
  createdAt: Date = new Date();
  /** Set when the retention period cut the request and result down to what the transcript shows. */
  trimmedAt: Date | null = null;
  /** The client's name for the call that asked for it (an MCP request id), so the client's cancellation finds it. */
  clientRef: string | null = null;
  /** When its worker began it; null while it waits behind an earlier step of its session. */
  startedAt: Date | null = null;
}

export const CodingStepSchema = new EntitySchema<CodingStep>({
  class: CodingStep,
  tableName: 'coding_steps',
  uniques: [{ name: 'coding_steps_session_n_unique', properties: ['session', 'n'] }],
  indexes: [
    {
      name: 'coding_steps_in_flight_index',
      expression: `create index "coding_steps_in_flight_index" on "coding_steps" ("created_at") where "n" is null`,
    },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    session: { kind: 'm:1', entity: () => Delivery, ref: true, deleteRule: 'cascade' },
    n: { type: 'integer', nullable: true },
    kind: { type: 'string', length: 16 },
    request: { type: 'json' },
    result: { type: 'json' },
    durationMs: { type: 'integer' },
    createdAt: { type: 'datetime', length: 6 },
    trimmedAt: { type: 'datetime', length: 6, nullable: true },
    clientRef: { type: 'string', length: 100, nullable: true },
    startedAt: { type: 'datetime', length: 6, nullable: true },
  },
});
