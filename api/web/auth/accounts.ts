/** Website accounts: sign-up and log-in with email and password, and an API key for a signed-in person. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ApiKey } from '../../../infra/db/entities/api-key.entity';
import { User } from '../../../infra/db/entities/user.entity';
import { UserPassword } from '../../../infra/db/entities/user-password.entity';
import { hashToken, newApiKey } from '../../../infra/domain/credentials';
import { generatedUsername, isValidUsername, normaliseUsername, USERNAME_RULE } from '../../../infra/domain/username';
import { ApiError } from '../../errors';
import { hashPassword, needsRehash, passwordProblem, spendPasswordCheck, verifyPassword } from './passwords';

/** One message for an unknown email and a wrong password, so neither tells which emails have accounts. */
export const WRONG_LOGIN = 'wrong email or password';

const emailShape = z.email().max(320);

/** Emails are stored lowercase, so `Ada@Example.org` and `ada@example.org` are one account. */
export function normaliseEmail(raw: string): string {
  return raw.trim().toLowerCase();
}

export function isValidEmail(normalised: string): boolean {
  return emailShape.safeParse(normalised).success;
}

export interface SignUpInput {
  email: string;
  password: string;
  /** Generated (`user-xxxxxxxx`) when not given. */
  username?: string;
  /** Client address, kept for abuse tracking like the API's registrations. */
  ip?: string;
}

const emailTaken = () => new ApiError(409, 'an account with this email already exists; log in instead');
const usernameTaken = (name: string) => new ApiError(409, `username ${name} is already taken`);

/** Creates an account with a password. Throws ApiError 400 for a broken rule, 409 for a taken email or username. */
export async function signUp(em: EntityManager, input: SignUpInput): Promise<User> {
  const email = normaliseEmail(input.email);
  if (!isValidEmail(email)) throw new ApiError(400, 'email: must be a valid email address');
  const problem = passwordProblem(input.password);
  if (problem) throw new ApiError(400, problem);
  const chosen = input.username === undefined || input.username.trim() === '' ? undefined : normaliseUsername(input.username);
  if (chosen !== undefined && !isValidUsername(chosen)) throw new ApiError(400, `username: must be ${USERNAME_RULE}`);

  // Checked first so a taken email costs no hashing; the unique constraints still settle races.
  if ((await em.count(User, { email })) > 0) throw emailTaken();
  if (chosen !== undefined && (await em.count(User, { username: chosen })) > 0) throw usernameTaken(chosen);
  const hash = await hashPassword(input.password);

  for (let attempt = 0; ; attempt++) {
    // A fork per attempt: a failed flush leaves nothing half-made in the caller's identity map.
    const work = em.fork();
    const user = work.create(User, { username: chosen ?? generatedUsername(), email, registrationIp: input.ip ?? null });
    work.create(UserPassword, { user, hash });
    try {
      await work.flush();
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
      if (/users_email_unique/.test(err.message)) throw emailTaken();
      if (chosen !== undefined) throw usernameTaken(chosen);
      if (attempt < 3) continue; // a generated name collided: draw again
      throw err;
    }
    return em.findOneOrFail(User, user.id);
  }
}

export interface LogInInput {
  email: string;
  password: string;
}

/** The account for an email and password, or ApiError 401 `wrong email or password`. */
export async function logIn(em: EntityManager, input: LogInInput): Promise<User> {
  const email = normaliseEmail(input.email);
  const user = isValidEmail(email) ? await em.findOne(User, { email }) : null;
  const stored = user ? await em.findOne(UserPassword, { user }) : null;
  if (!user || !stored) {
    await spendPasswordCheck(input.password);
    throw new ApiError(401, WRONG_LOGIN);
  }
  if (!(await verifyPassword(stored.hash, input.password))) throw new ApiError(401, WRONG_LOGIN);
  if (needsRehash(stored.hash)) {
    stored.hash = await hashPassword(input.password);
    stored.updatedAt = new Date();
    await em.flush();
  }
  return user;
}

/** Sets or replaces an account's password (an account made through an identity provider has none). */
export async function setPassword(em: EntityManager, user: User, password: string): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw new ApiError(400, problem);
  const hash = await hashPassword(password);
  const stored = await em.findOne(UserPassword, { user });
  if (stored) {
    stored.hash = hash;
    stored.updatedAt = new Date();
  } else {
    em.create(UserPassword, { user, hash });
  }
  await em.flush();
}

/** A new API key for the account, the same kind POST /api/register gives: returned once, stored as its SHA-256. */
export async function issueApiKeyFor(em: EntityManager, user: User): Promise<string> {
  const apiKey = newApiKey();
  em.create(ApiKey, { user, keyHash: hashToken(apiKey) });
  await em.flush();
  return apiKey;
}
