/** A competitor owned by an account, reached by push (webhook), pull (runner) or A2A (its agent card). */
import { EntityRepositoryType, EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import type { AgentMode } from '../../../domain/agent-state';
import { INITIAL_ELO } from '../../../domain/ratings/elo';
import { AgentRepository } from '../repositories/agent.repository';
import { User } from './user.entity';

export class Agent {
  [OptionalProps]?:
    | 'createdAt'
    | 'webhookUrl'
    | 'agentCardUrl'
    | 'a2aCard'
    | 'deactivated'
    | 'pingOk'
    | 'pingError'
    | 'pingsSent'
    | 'ownerHandleOwn'
    | 'modelClaimed'
    | 'costClaimed'
    | 'toolsClaimed'
    | 'description'
    | 'elo'
    | 'gymComplete'
    | 'gymAttempt'
    | 'gymStartedAt'
    | 'gymCompletedAt'
    | 'consecutiveFailures'
    | 'failingSince'
    | 'lastSeenAt';
  id!: number;
  owner!: Ref<User>;
  name!: string;
  mode!: AgentMode;
  webhookUrl: string | null = null;
  /** An A2A agent's card, as its owner gave it. */
  agentCardUrl: string | null = null;
  /** The card as the last ping read it: deliveries call the JSON-RPC interface it names. */
  a2aCard: Record<string, unknown> | null = null;
  /** Set once by the owner; permanent. */
  deactivated = false;
  /** Result of the last connectivity ping (push mode). */
  pingOk = false;
  pingError: string | null = null;
  pingsSent = 0;
  /** The owner name shown publicly: the account's (domain/agent-state's accountOwnerName) unless the agent has its own. */
  ownerHandle!: string;
  /** Whether `ownerHandle` is this agent's own, set on purpose; otherwise it follows the account's name. */
  ownerHandleOwn = false;
  modelClaimed: string | null = null;
  costClaimed: string | null = null;
  toolsClaimed: string[] = [];
  description: string | null = null;
  elo = INITIAL_ELO;
  gymComplete = false;
  /** Counts gym runs: 0 until the agent first becomes active; each restart adds one. */
  gymAttempt = 0;
  gymStartedAt: Date | null = null;
  gymCompletedAt: Date | null = null;
  /** Push deliveries that failed in a row, and when the first of them failed; a good answer or ping resets both. */
  consecutiveFailures = 0;
  failingSince: Date | null = null;
  /** When it last showed it can answer: a pull agent's poll or result, a push agent's passing ping or answer. */
  lastSeenAt: Date | null = null;
  /** SHA-256 of the secret, for `X-Arena-Secret`. */
  secretHash!: string;
  /** The secret sealed with AES-256-GCM, because signing needs the plain key. */
  secretSealed!: string;
  createdAt: Date = new Date();
  [EntityRepositoryType]?: AgentRepository;
}

export const AgentSchema = new EntitySchema<Agent>({
  class: Agent,
  tableName: 'agents',
  repository: () => AgentRepository,
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    owner: { kind: 'm:1', entity: () => User, ref: true, deleteRule: 'cascade', index: true },
    name: { type: 'string', length: 100 },
    mode: { type: 'string', length: 8 },
    webhookUrl: { type: 'text', nullable: true },
    agentCardUrl: { type: 'text', nullable: true },
    a2aCard: { type: 'json', nullable: true },
    deactivated: { type: 'boolean', default: false },
    pingOk: { type: 'boolean', default: false },
    pingError: { type: 'text', nullable: true },
    pingsSent: { type: 'integer', default: 0 },
    ownerHandle: { type: 'string', length: 100 },
    ownerHandleOwn: { type: 'boolean', default: false },
    modelClaimed: { type: 'string', length: 200, nullable: true },
    costClaimed: { type: 'string', length: 200, nullable: true },
    toolsClaimed: { type: 'json', default: '[]' },
    description: { type: 'string', length: 500, nullable: true },
    elo: { type: 'integer', default: INITIAL_ELO },
    gymComplete: { type: 'boolean', default: false },
    gymAttempt: { type: 'integer', default: 0 },
    gymStartedAt: { type: 'datetime', length: 6, nullable: true },
    gymCompletedAt: { type: 'datetime', length: 6, nullable: true },
    consecutiveFailures: { type: 'integer', default: 0 },
    failingSince: { type: 'datetime', length: 6, nullable: true },
    lastSeenAt: { type: 'datetime', length: 6, nullable: true },
    secretHash: { type: 'string', length: 64 },
    secretSealed: { type: 'text' },
    createdAt: { type: 'datetime', length: 6 },
  },
});
