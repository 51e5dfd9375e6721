/** A judge whose votes disagree with the consensus far beyond chance: left out of the rating fit. */
import { EntitySchema, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

export class JudgeFlag {
  judge!: Ref<User>;
  votes!: number;
  /** The anomaly test's combined p-value; smaller is more anomalous. */
  pValue!: number;
  flaggedAt!: Date;
}

export const JudgeFlagSchema = new EntitySchema<JudgeFlag>({
  class: JudgeFlag,
  tableName: 'judge_flags',
  properties: {
    judge: { kind: '1:1', entity: () => User, ref: true, primary: true, owner: true, deleteRule: 'cascade' },
    votes: { type: 'integer' },
    pValue: { type: 'double' },
    flaggedAt: { type: 'datetime', length: 6 },
  },
});
