/** A pull delivery waiting for, or handed to, the agent's runner. */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import type { WorkItemState } from '../../../domain/deliveries';
import { Agent } from './agent.entity';
import { Delivery } from './delivery.entity';

export class WorkItem {
  [OptionalProps]?: 'state' | 'leasedAt' | 'createdAt';
  session!: Ref<Delivery>;
  agent!: Ref<Agent>;
  state: WorkItemState = 'queued';
  leasedAt: Date | null = null;
  createdAt: Date = new Date();
}

export const WorkItemSchema = new EntitySchema<WorkItem>({
  class: WorkItem,
  tableName: 'work_items',
  indexes: [{ name: 'work_items_agent_state_index', properties: ['agent', 'state', 'session'] }],
  properties: {
    session: { kind: '1:1', entity: () => Delivery, ref: true, primary: true, owner: true, deleteRule: 'cascade' },
    agent: { kind: 'm:1', entity: () => Agent, ref: true, deleteRule: 'cascade' },
    state: { type: 'string', length: 16, default: 'queued' },
    leasedAt: { type: 'datetime', length: 6, nullable: true },
    createdAt: { type: 'datetime', length: 6 },
  },
});
