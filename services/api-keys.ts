/** An account's API keys, listed, issued and revoked, from the API (/api/keys) or the website's account page. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { ApiKey } from '../infra/db/entities/api-key.entity';
import type { User } from '../infra/db/entities/user.entity';
import { apiKeyPrefix, hashToken, newApiKey } from '../domain/credentials';
import { formatNullableTimestamp, formatTimestamp } from '../domain/timestamps';
import { notFound } from '../api/errors';
import type { apiKeyEntry } from '../api/schemas/api-key';

/**
 * New keys per account per minute, the API and the website together. Nobody needs many keys at
 * once, and every key is another credential to leak.
 */
export const API_KEYS_PER_MINUTE = 5;

/** A key as its owner sees it in a list: never the key, never its hash. */
export function apiKeyView(key: ApiKey): z.infer<typeof apiKeyEntry> {
  return { id: key.id, prefix: key.keyPrefix, created_at: formatTimestamp(key.createdAt), last_used_at: formatNullableTimestamp(key.lastUsedAt) };
}

/** A new key for the account, of the kind POST /api/register gives; returned once, stored as its SHA-256. */
export async function issueApiKey(em: EntityManager, user: User): Promise<{ apiKey: string; key: ApiKey }> {
  const apiKey = newApiKey();
  const key = em.create(ApiKey, { user, keyHash: hashToken(apiKey), keyPrefix: apiKeyPrefix(apiKey) });
  await em.flush();
  return { apiKey, key };
}

/** The account's keys, oldest first. */
export function listApiKeys(em: EntityManager, userId: number): Promise<ApiKey[]> {
  return em.find(ApiKey, { user: userId }, { orderBy: { id: 'asc' } });
}

/**
 * Revokes one of the account's keys by deleting it: the bearer check finds no row from the next
 * request on, in every API process. Someone else's key is 404, like a missing one.
 */
export async function revokeApiKey(em: EntityManager, userId: number, keyId: number): Promise<void> {
  if ((await em.nativeDelete(ApiKey, { id: keyId, user: userId })) === 0) throw notFound('API key');
}
