/** One step of a coding session (exec, read, write, submit) as the public transcript shows it. */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { Session } from './session.entity';

export type CodingStepKind = 'exec' | 'read' | 'write' | 'submit';

export class CodingStep {
  [OptionalProps]?: 'createdAt' | 'n';
  id!: number;
  session!: Ref<Session>;
  /** 1, 2, … within the session, given when the step runs; null while it waits. */
  n: number | null = null;
  kind!: CodingStepKind;
  request!: Record<string, unknown>;
  /** Null until the step ran. */
  result!: Record<string, unknown> | null;
  durationMs!: number;
  createdAt: Date = new Date();
}

export const CodingStepSchema = new EntitySchema<CodingStep>({
  class: CodingStep,
  tableName: 'coding_steps',
  uniques: [{ name: 'coding_steps_session_n_unique', properties: ['session', 'n'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    session: { kind: 'm:1', entity: () => Session, ref: true, deleteRule: 'cascade' },
    n: { type: 'integer', nullable: true },
    kind: { type: 'string', length: 16 },
    request: { type: 'json' },
    result: { type: 'json' },
    durationMs: { type: 'integer' },
    createdAt: { type: 'datetime', length: 6 },
  },
});
