/** A uid of the sandbox's range, held by one live coding session: no two live sessions share a uid (and its process limit). */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { CodingSession } from './coding-session.entity';

export class SandboxUidLease {
  [OptionalProps]?: 'leasedAt';
  uid!: number;
  session!: Ref<CodingSession>;
  leasedAt: Date = new Date();
}

export const SandboxUidLeaseSchema = new EntitySchema<SandboxUidLease>({
  class: SandboxUidLease,
  tableName: 'sandbox_uid_leases',
  properties: {
    uid: { type: 'integer', primary: true, autoincrement: false },
    session: {
      kind: '1:1',
      entity: () => CodingSession,
      ref: true,
      owner: true,
      fieldName: 'session_id',
      deleteRule: 'cascade',
    },
    leasedAt: { type: 'datetime', length: 6 },
  },
});
