/** An account at an external OpenID Connect provider linked to an arena account. */
import { EntitySchema, OptionalProps, PrimaryKeyProp, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

export class UserIdentity {
  [PrimaryKeyProp]?: ['provider', 'subject'];
  [OptionalProps]?: 'createdAt';
  /** The provider's issuer URL. */
  provider!: string;
  /** The provider's `sub` claim: stable and unique within the issuer. */
  subject!: string;
  user!: Ref<User>;
  createdAt: Date = new Date();
}

export const UserIdentitySchema = new EntitySchema<UserIdentity>({
  class: UserIdentity,
  tableName: 'user_identities',
  properties: {
    provider: { type: 'string', length: 255, primary: true },
    subject: { type: 'string', length: 255, primary: true },
    user: { kind: 'm:1', entity: () => User, ref: true, deleteRule: 'cascade', index: 'user_identities_user_id_index' },
    createdAt: { type: 'datetime', length: 6 },
  },
});
