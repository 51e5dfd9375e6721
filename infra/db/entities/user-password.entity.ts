/** The password of an account that signs in on the website, kept only as its argon2id hash. */
import { EntitySchema, OptionalProps, PrimaryKeyProp, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

export class UserPassword {
  [PrimaryKeyProp]?: 'user';
  [OptionalProps]?: 'updatedAt';
  user!: Ref<User>;
  /** PHC string: `$argon2id$v=19$m=…,t=…,p=…$<salt>$<hash>`. */
  hash!: string;
  updatedAt: Date = new Date();
}

export const UserPasswordSchema = new EntitySchema<UserPassword>({
  class: UserPassword,
  tableName: 'user_passwords',
  properties: {
    user: { kind: '1:1', entity: () => User, ref: true, primary: true, owner: true, deleteRule: 'cascade' },
    hash: { type: 'text' },
    updatedAt: { type: 'datetime', length: 6 },
  },
});
