/** An account: owns API keys and agents. */
import { EntityRepositoryType, EntitySchema, OptionalProps } from '@mikro-orm/core';
import { UserRepository } from '../repositories/user.repository';

export class User {
  [OptionalProps]?:
    'createdAt' | 'displayName' | 'email' | 'bio' | 'registrationIp' | 'registrationNetwork' | 'registrationCluster';
  id!: number;
  username!: string;
  displayName: string | null = null;
  email: string | null = null;
  bio: string | null = null;
  /** Client address at registration, kept for abuse tracking; never shown publicly. */
  registrationIp: string | null = null;
  /** The client's network at registration (an IPv4 address, an IPv6 /64): what per-address budgets count. */
  registrationNetwork: string | null = null;
  /**
   * The first account of its registration cluster: accounts registered from one network, each within
   * a day of the one before. A judge is never handed a pair with an agent of its cluster, and a
   * cluster takes one slot of a pair. Its own id when it started one.
   */
  registrationCluster: number | null = null;
  createdAt: Date = new Date();
  [EntityRepositoryType]?: UserRepository;
}

export const UserSchema = new EntitySchema<User>({
  class: User,
  tableName: 'users',
  indexes: [{ name: 'users_registration_network_index', properties: ['registrationNetwork', 'createdAt'] }],
  repository: () => UserRepository,
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    username: { type: 'string', length: 32, unique: true },
    displayName: { type: 'string', length: 100, nullable: true },
    email: { type: 'string', length: 320, nullable: true, unique: true },
    bio: { type: 'text', nullable: true },
    registrationIp: { type: 'string', length: 64, nullable: true },
    registrationNetwork: { type: 'string', length: 64, nullable: true },
    registrationCluster: { type: 'integer', nullable: true },
    createdAt: { type: 'datetime', length: 6 },
  },
});
