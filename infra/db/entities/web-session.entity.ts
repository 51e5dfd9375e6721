/** A signed-in browser: the cookie holds a random token, the row only its SHA-256, so logout and expiry are real. */
import { EntitySchema, OptionalProps, type Ref } from '@mikro-orm/core';
import { User } from './user.entity';

export class WebSession {
  [OptionalProps]?: 'createdAt' | 'lastSeenAt';
  /** SHA-256 (hex) of the cookie's token. */
  id!: string;
  user!: Ref<User>;
  /** Binds the session's CSRF tokens to it: tokens made for one session fail on any other. */
  csrfSecret!: string;
  createdAt: Date = new Date();
  expiresAt!: Date;
  lastSeenAt: Date = new Date();
}

export const WebSessionSchema = new EntitySchema<WebSession>({
  class: WebSession,
  tableName: 'web_sessions',
  indexes: [{ name: 'web_sessions_expires_at_index', properties: ['expiresAt'] }],
  properties: {
    id: { type: 'string', length: 64, primary: true },
    user: { kind: 'm:1', entity: () => User, ref: true, deleteRule: 'cascade', index: 'web_sessions_user_id_index' },
    csrfSecret: { type: 'string', length: 64 },
    createdAt: { type: 'datetime', length: 6 },
    expiresAt: { type: 'datetime', length: 6 },
    lastSeenAt: { type: 'datetime', length: 6 },
  },
});
