/** An account: owns API keys and agents. */
import { EntityRepositoryType, EntitySchema, OptionalProps } from '@mikro-orm/core';
import { UserRepository } from '../repositories/user.repository';

export class User {
  [OptionalProps]?: 'createdAt' | 'displayName' | 'email' | 'bio' | 'registrationIp';
  id!: number;
  username!: string;
  displayName: string | null = null;
  email: string | null = null;
  bio: string | null = null;
  /** Client address at registration, kept for abuse tracking; never shown publicly. */
  registrationIp: string | null = null;
  createdAt: Date = new Date();
  [EntityRepositoryType]?: UserRepository;
}

export const UserSchema = new EntitySchema<User>({
  class: User,
  tableName: 'users',
  repository: () => UserRepository,
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    username: { type: 'string', length: 32, unique: true },
    displayName: { type: 'string', length: 100, nullable: true },
    email: { type: 'string', length: 320, nullable: true, unique: true },
    bio: { type: 'text', nullable: true },
    registrationIp: { type: 'string', length: 64, nullable: true },
    createdAt: { type: 'datetime', length: 6 },
  },
});
