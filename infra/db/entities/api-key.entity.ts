/** An API key of an account, stored as its SHA-256 only. */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

export class ApiKey {
  [OptionalProps]?: 'createdAt' | 'lastUsedAt';
  id!: number;
  user!: Ref<User>;
  keyHash!: string;
  /** The key's first characters as shown (`apiKeyPrefix`), to tell keys apart; null for keys made before they were kept. */
  keyPrefix!: string | null;
  createdAt: Date = new Date();
  lastUsedAt: Date | null = null;
}

export const ApiKeySchema = new EntitySchema<ApiKey>({
  class: ApiKey,
  tableName: 'api_keys',
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    user: { kind: 'm:1', entity: () => User, ref: true, deleteRule: 'cascade' },
    keyHash: { type: 'string', length: 64, unique: true },
    keyPrefix: { type: 'string', length: 16, nullable: true },
    createdAt: { type: 'datetime', length: 6 },
    lastUsedAt: { type: 'datetime', length: 6, nullable: true },
  },
});
