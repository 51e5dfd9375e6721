/** One delivery of one prompt to one agent: the public activity feed entry. */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import type { AgentMode } from '../../../domain/agent-state';
import type { PushState, DeliveryKind, DeliveryStatus } from '../../../domain/deliveries';
import { Agent } from './agent.entity';
import { Prompt } from './prompt.entity';

export class Delivery {
  [OptionalProps]?:
    | 'createdAt'
    | 'status'
    | 'response'
    | 'error'
    | 'errorDetail'
    | 'latencyMs'
    | 'agentLatencyMs'
    | 'pushState'
    | 'sentAt'
    | 'completedAt'
    | 'resultHash'
    | 'dedupeKey'
    | 'redeliveryOf'
    | 'judgingUntil';
  id!: number;
  agent!: Ref<Agent>;
  kind!: DeliveryKind;
  prompt!: Ref<Prompt>;
  /** The agent's mode when the delivery started. */
  mode!: AgentMode;
  category!: string;
  deadlineSeconds!: number;
  status: DeliveryStatus = 'pending';
  response: string | null = null;
  /** What the public feed shows of a failure. */
  error: string | null = null;
  /** The failure as the owner sees it (a webhook's host, port and address), when it differs from `error`. */
  errorDetail: string | null = null;
  /** Ours: from the prompt leaving the service to the answer arriving. */
  latencyMs: number | null = null;
  /** The agent's own timing, as a pull runner reports it. */
  agentLatencyMs: number | null = null;
  /** Push only: null until the webhook POST is attempted, `sending` from then on (at most once). */
  pushState: PushState | null = null;
  sentAt: Date | null = null;
  completedAt: Date | null = null;
  /** SHA-256 of the recorded pull result, to tell a repeated post from a conflicting one. */
  resultHash: string | null = null;
  /** Makes the creation of a session by a retried activity idempotent. */
  dedupeKey: string | null = null;
  /** An operator's redelivery points at the original delivery (never at another redelivery). */
  redeliveryOf: Ref<Delivery> | null = null;
  /** A main answer's text stays out of public view until then; null means public. */
  judgingUntil: Date | null = null;
  createdAt: Date = new Date();
}

export const DeliverySchema = new EntitySchema<Delivery>({
  class: Delivery,
  tableName: 'sessions',
  indexes: [
    { name: 'sessions_agent_feed_index', properties: ['agent', 'id'] },
    // Dispatch: an agent's latest main delivery, and whether one is in flight.
    {
      name: 'sessions_main_agent_index',
      expression: `create index "sessions_main_agent_index" on "sessions" ("agent_id", "created_at") where "kind" = 'main'`,
    },
    // An agent's coding record (the leaderboard and profile column).
    {
      name: 'sessions_coding_agent_index',
      expression: `create index "sessions_coding_agent_index" on "sessions" ("agent_id", "status") where "kind" = 'sandbox' and "category" = 'swe'`,
    },
    // Pairing: a prompt's latest answered main sessions, read backwards by id.
    {
      name: 'sessions_main_answered_index',
      expression: `create index "sessions_main_answered_index" on "sessions" ("prompt_id", "id") where "kind" = 'main' and "status" = 'answered'`,
    },
  ],
  // The arena sends a main prompt to an agent at most once; only an operator's redelivery repeats it.
  uniques: [
    {
      name: 'sessions_main_prompt_unique',
      expression: `create unique index "sessions_main_prompt_unique" on "sessions" ("agent_id", "prompt_id") where "kind" = 'main' and "redelivery_of_id" is null`,
    },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    agent: { kind: 'm:1', entity: () => Agent, ref: true, deleteRule: 'cascade' },
    kind: { type: 'string', length: 16 },
    prompt: { kind: 'm:1', entity: () => Prompt, ref: true, index: true },
    mode: { type: 'string', length: 8 },
    category: { type: 'string', length: 100 },
    deadlineSeconds: { type: 'integer' },
    status: { type: 'string', length: 16, default: 'pending' },
    response: { type: 'text', nullable: true },
    error: { type: 'text', nullable: true },
    errorDetail: { type: 'text', nullable: true },
    latencyMs: { type: 'integer', nullable: true },
    agentLatencyMs: { type: 'integer', nullable: true },
    pushState: { type: 'string', length: 16, nullable: true },
    sentAt: { type: 'datetime', length: 6, nullable: true },
    completedAt: { type: 'datetime', length: 6, nullable: true },
    resultHash: { type: 'string', length: 64, nullable: true },
    dedupeKey: { type: 'string', length: 200, nullable: true, unique: true },
    redeliveryOf: {
      kind: 'm:1',
      entity: () => Delivery,
      ref: true,
      nullable: true,
      index: true,
      deleteRule: 'set null',
    },
    judgingUntil: { type: 'datetime', length: 6, nullable: true },
    createdAt: { type: 'datetime', length: 6 },
  },
});
