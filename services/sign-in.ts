/** Website accounts: sign-up, log-in and password changes with email and password. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { User } from '../infra/db/entities/user.entity';
import { placeInRegistrationCluster, type RegistrationOrigin } from '../infra/db/repositories/user.repository';
import { UserPassword } from '../infra/db/entities/user-password.entity';
import { UserIdentity } from '../infra/db/entities/user-identity.entity';
import { generatedUsername, isValidUsername, normaliseUsername, USERNAME_RULE } from '../domain/username';
import { ArenaError } from '../domain/errors';
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
  /** Where the sign-up came from, kept for abuse tracking like the API's registrations. */
  origin?: RegistrationOrigin;
}

const usernameTaken = (name: string) => new ArenaError('conflict', `username ${name} is already taken`);

/**
 * Creates an account with a password. Throws ArenaError `invalid` for a broken rule and `conflict` for a taken
 * username (usernames are public anyway). An email that already has an account gives null, after
 * the same work as a sign-up that succeeds, and changes nothing: the caller answers both alike, so
 * sign-up does not tell which emails have accounts.
 */
export async function signUp(em: EntityManager, input: SignUpInput): Promise<User | null> {
  const email = normaliseEmail(input.email);
  if (!isValidEmail(email)) throw new ArenaError('invalid', 'email: must be a valid email address');
  const problem = passwordProblem(input.password);
  if (problem) throw new ArenaError('invalid', problem);
  const chosen =
    input.username === undefined || input.username.trim() === '' ? undefined : normaliseUsername(input.username);
  if (chosen !== undefined && !isValidUsername(chosen))
    throw new ArenaError('invalid', `username: must be ${USERNAME_RULE}`);
  if (chosen !== undefined && (await em.count(User, { username: chosen })) > 0) throw usernameTaken(chosen);

  // Hashed whether or not the email is known, so the time taken does not tell either.
  const hash = await hashPassword(input.password);
  if ((await em.count(User, { email })) > 0) return null;

  for (let attempt = 0; ; attempt++) {
    // A fork per attempt: a failed flush leaves nothing half-made in the caller's identity map.
    const work = em.fork();
    const user = work.create(User, {
      username: chosen ?? generatedUsername(),
      email,
      registrationIp: input.origin?.ip ?? null,
    });
    work.create(UserPassword, { user, hash });
    try {
      await work.flush();
    } catch (err) {
      if (!(err instanceof UniqueConstraintViolationException)) throw err;
      if (/users_email_unique/.test(err.message)) return null; // a parallel sign-up took the email
      if (chosen !== undefined) throw usernameTaken(chosen);
      if (attempt < 3) continue; // a generated name collided: draw again
      throw err;
    }
    if (input.origin) await placeInRegistrationCluster(work, user.id, input.origin.network);
    return em.findOneOrFail(User, user.id);
  }
}

export interface LogInInput {
  email: string;
  password: string;
}

/** The account for an email and password, or ArenaError `unauthenticated`: `wrong email or password`. */
export async function logIn(em: EntityManager, input: LogInInput): Promise<User> {
  const email = normaliseEmail(input.email);
  const user = isValidEmail(email) ? await em.findOne(User, { email }) : null;
  const stored = user ? await em.findOne(UserPassword, { user }) : null;
  if (!user || !stored) {
    await spendPasswordCheck(input.password);
    throw new ArenaError('unauthenticated', WRONG_LOGIN);
  }
  if (!(await verifyPassword(stored.hash, input.password))) throw new ArenaError('unauthenticated', WRONG_LOGIN);
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
  if (problem) throw new ArenaError('invalid', problem);
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

/**
 * A signed-in person's password change: the current password first, then the new one under the
 * usual rule. ArenaError `invalid` names the field that is wrong. An account made through an identity
 * provider has no password and gets none here: a session alone (perhaps someone else's, left
 * open) must not be able to add a way in. Ending the other sessions is the caller's part.
 */
export async function changePassword(
  em: EntityManager,
  user: User,
  change: { current: string; replacement: string },
): Promise<void> {
  const stored = await em.findOne(UserPassword, { user });
  if (!stored)
    throw new ArenaError(
      'invalid',
      'current_password: this account has no password; sign in with your identity provider',
    );
  if (!(await verifyPassword(stored.hash, change.current)))
    throw new ArenaError('invalid', 'current_password: is not your password');
  const problem = passwordProblem(change.replacement);
  if (problem) throw new ArenaError('invalid', `new_${problem}`);
  await setPassword(em, user, change.replacement);
}

/**
 * The API's password (PUT /api/account/password): an account made with POST /api/register has no
 * password, and its key may set the first one so the account can use the website; a password
 * already set is changed only with the current one (a key alone, perhaps leaked, must not lock the
 * owner out). An account linked to an identity provider gets none here, as on the website. The
 * website signs in by email, so the account needs one first. Returns whether a password was replaced.
 */
export async function putPassword(
  em: EntityManager,
  user: User,
  put: { password: string; current_password?: string | undefined },
): Promise<{ replaced: boolean }> {
  const problem = passwordProblem(put.password);
  if (problem) throw new ArenaError('invalid', problem);
  const stored = await em.findOne(UserPassword, { user });
  if (stored) {
    // The account's state, not the body, is what is wrong: 409; a wrong current password is a refused credential: 403.
    if (put.current_password === undefined)
      throw new ArenaError('conflict', 'current_password: is required to change the password this account has');
    if (!(await verifyPassword(stored.hash, put.current_password)))
      throw new ArenaError('forbidden', 'current_password: is not your password');
    await setPassword(em, user, put.password);
    return { replaced: true };
  }
  if ((await em.count(UserIdentity, { user })) > 0)
    throw new ArenaError('conflict', 'this account signs in through its identity provider and takes no password');
  if (!user.email)
    throw new ArenaError(
      'conflict',
      'the website signs in by email: set one first with PATCH /api/account {"email": "..."}',
    );
  await setPassword(em, user, put.password);
  return { replaced: false };
}

/** Whether the account has a password (one made through an identity provider may not). */
export async function hasPassword(em: EntityManager, user: User): Promise<boolean> {
  return (await em.count(UserPassword, { user })) > 0;
}
