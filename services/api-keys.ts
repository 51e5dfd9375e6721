/** API accounts and their keys: registration (POST /api/register), and keys listed, issued and revoked from the API or the website. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../infra/db/entities/api-key.entity';
import { User } from '../infra/db/entities/user.entity';
import { placeInRegistrationCluster, type RegistrationOrigin } from '../infra/db/repositories/user.repository';
import { apiKeyPrefix, hashToken, newApiKey } from '../domain/credentials';
import { generatedUsername } from '../domain/username';
import { notFound } from '../domain/errors';

/**
 * New keys per account per minute, the API and the website together. Nobody needs many keys at
 * once, and every key is another credential to leak.
 */
export const API_KEYS_PER_MINUTE = 5;

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

/** A new account with a generated name and its first API key, returned once; where it came from is kept for abuse tracking. */
export async function registerAccount(
  em: EntityManager,
  origin: RegistrationOrigin,
): Promise<{ apiKey: string; user: User }> {
  const apiKey = newApiKey();
  // A generated name can collide; a couple of fresh draws settle it.
  for (let attempt = 0; ; attempt++) {
    const work = em.fork();
    const user = work.create(User, { username: generatedUsername(), registrationIp: origin.ip });
    work.create(ApiKey, { user, keyHash: hashToken(apiKey), keyPrefix: apiKeyPrefix(apiKey) });
    try {
      await work.flush();
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException && attempt < 3) continue;
      throw err;
    }
    await placeInRegistrationCluster(work, user.id, origin.network);
    return { apiKey, user };
  }
}
