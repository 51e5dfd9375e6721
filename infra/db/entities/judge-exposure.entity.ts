/**
 * How many battles with an agent have been handed to judges: in all (`source` empty), and per
 * client address (`address:<network>`) and registration cluster (`cluster:<id>`), so that judge/next
 * can keep any one address or cluster from taking most of an agent's battles.
 */
import { EntitySchema, type Ref } from '@mikro-orm/core';
import { Agent } from './agent.entity';

export class JudgeExposure {
  agent!: Ref<Agent>;
  source!: string;
  battles!: number;
}

export const JudgeExposureSchema = new EntitySchema<JudgeExposure>({
  class: JudgeExposure,
  tableName: 'judge_exposures',
  properties: {
    agent: { kind: 'm:1', entity: () => Agent, ref: true, primary: true, deleteRule: 'cascade' },
    source: { type: 'string', length: 80, primary: true },
    battles: { type: 'integer' },
  },
});
