/**
 * A judge's standing: whether its votes count on the fitted boards yet (established by an operator's
 * trust, or by age and agreement with established judges), and whether an operator voided them.
 */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

export class JudgeStanding {
  [OptionalProps]?:
    'trustedAt' | 'establishedAt' | 'comparedVotes' | 'agreement' | 'contraryAgents' | 'voidedAt' | 'voidReason';
  judge!: Ref<User>;
  /** When an operator vouched for the judge (`arena judges trust`): established at once, and exempt from the per-address rules. */
  trustedAt: Date | null = null;
  /** When its votes began to count on the boards; stays set. */
  establishedAt: Date | null = null;
  /** Its votes on pairs an established judge also voted on, as of the last refresh. */
  comparedVotes = 0;
  /** How often those votes agreed with the established judges' (a tie against a winner counts half); null with none. */
  agreement: number | null = null;
  /** Agents on which its votes went against the trusted judges' fit beyond chance, at the last refresh: while any, it is not established. */
  contraryAgents = 0;
  /** When an operator voided its votes (`arena judges void`): none count again, and their Elo changes were reversed. */
  voidedAt: Date | null = null;
  voidReason: string | null = null;
}

export const JudgeStandingSchema = new EntitySchema<JudgeStanding>({
  class: JudgeStanding,
  tableName: 'judge_standings',
  properties: {
    judge: { kind: '1:1', entity: () => User, ref: true, primary: true, owner: true, deleteRule: 'cascade' },
    trustedAt: { type: 'datetime', length: 6, nullable: true },
    establishedAt: { type: 'datetime', length: 6, nullable: true },
    comparedVotes: { type: 'integer', default: 0 },
    agreement: { type: 'double', nullable: true },
    contraryAgents: { type: 'integer', default: 0 },
    voidedAt: { type: 'datetime', length: 6, nullable: true },
    voidReason: { type: 'text', nullable: true },
  },
});
