/** Bearer API-key authentication for the routes that act on an account. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { hashToken, looksLikeApiKey } from '../../domain/credentials';
import { User } from '../../infra/db/entities/user.entity';
import { PROTECTED_RESOURCE_PATH } from '../discovery/documents';
import { ApiError } from '../errors';

declare module 'fastify' {
  interface FastifyRequest {
    account: User;
  }
  interface FastifyInstance {
    /** onRequest hook for a subtree that needs `Authorization: Bearer <API_KEY>`. */
    requireAccount: (request: FastifyRequest) => Promise<void>;
  }
}

/** The account an API key (by its SHA-256) belongs to, or null; marks the key used. */
export type AccountOfKey = (em: EntityManager, keyHash: string) => Promise<User | null>;

const storedAccountOfKey: AccountOfKey = (em, keyHash) => em.getRepository(User).findByApiKeyHash(keyHash);

export interface AuthOptions {
  /** Named in every 401 so a client can find how to authenticate (RFC 9728 §5.1). */
  publicUrl?: string;
  /** The stored keys by default; the unit tests' offline app passes a stand-in. */
  accountOfKey?: AccountOfKey;
}

function challenge(publicUrl: string | undefined): string {
  const metadata = publicUrl ? `, resource_metadata="${publicUrl}${PROTECTED_RESOURCE_PATH}"` : '';
  return `Bearer realm="arena"${metadata}`;
}

export const authPlugin = fp(
  async (app: FastifyInstance, opts: AuthOptions) => {
    const wwwAuthenticate = challenge(opts.publicUrl);
    const accountOfKey = opts.accountOfKey ?? storedAccountOfKey;
    const unauthorized = (detail: string) => new ApiError(401, detail, { 'WWW-Authenticate': wwwAuthenticate });
    app.decorateRequest('account', null as unknown as User);
    app.decorate('requireAccount', async (request: FastifyRequest) => {
      const header = request.headers.authorization;
      if (!header) throw unauthorized('missing Authorization header; send Authorization: Bearer <API_KEY>');
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw unauthorized('malformed Authorization header; send Authorization: Bearer <API_KEY>');
      const key = match[1]!;
      const user = looksLikeApiKey(key) ? await accountOfKey(request.em, hashToken(key)) : null;
      if (!user) throw unauthorized('invalid API key');
      request.account = user;
    });
  },
  { name: 'auth', dependencies: ['orm'] },
);
