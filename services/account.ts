/** Editing one's own account, from the API (PATCH /api/account) or the website's account page. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { User } from '../infra/db/entities/user.entity';
import { ArenaError } from '../domain/errors';
import { isValidUsername, normaliseUsername, USERNAME_RULE } from '../domain/username';
import { accountOwnerName } from '../domain/agent-state';
import { agentsFollowingAccount } from './agent-lifecycle';
import { isValidEmail, normaliseEmail } from './sign-in';

/** The fields an owner may change; omitted ones stay, null clears a text. */
export interface AccountEdit {
  display_name?: string | null;
  bio?: string | null;
  username?: string;
  /** Where the website's sign-in finds the account; unique, stored lowercase. */
  email?: string;
}

/** An operator's name (ARENA_ADMIN_USERNAMES) belongs to that operator: nobody else may take it, whether or not it is taken yet. */
export function assertNotReserved(username: string, reserved: readonly string[], current?: string): void {
  if (reserved.includes(username) && username !== current)
    throw new ArenaError('conflict', `username ${username} is reserved`);
}

/**
 * Applies the given fields (omitted ones stay); 400 for an invalid username or email, 409 for a
 * taken or reserved username or a taken email, and then nothing changes.
 */
export async function editAccount(
  em: EntityManager,
  user: User,
  edit: AccountEdit,
  reservedUsernames: readonly string[] = [],
): Promise<void> {
  const before = { username: user.username, displayName: user.displayName, bio: user.bio, email: user.email };
  // The account's name is the owner name of every agent without its own (one name per person). Read
  // before anything changes: a query after a change would flush it first.
  const following = await agentsFollowingAccount(em, user);
  const nameAgents = () => following.forEach((agent) => (agent.ownerHandle = accountOwnerName(user)));
  if (edit.email !== undefined) {
    const email = normaliseEmail(edit.email);
    if (!isValidEmail(email)) throw new ArenaError('invalid', 'email must be a valid email address');
    user.email = email;
  }
  if (edit.username !== undefined) {
    const username = normaliseUsername(edit.username);
    if (!isValidUsername(username)) throw new ArenaError('invalid', `username must be ${USERNAME_RULE}`);
    assertNotReserved(username, reservedUsernames, user.username);
    user.username = username;
  }
  if (edit.display_name !== undefined) user.displayName = edit.display_name;
  if (edit.bio !== undefined) user.bio = edit.bio;
  nameAgents();
  try {
    await em.flush();
  } catch (err) {
    if (!(err instanceof UniqueConstraintViolationException)) throw err;
    const taken = user.username;
    // The request's identity map must not keep the refused values.
    Object.assign(user, before);
    nameAgents();
    if (/users_email_unique/.test(err.message))
      throw new ArenaError('conflict', 'that email belongs to another account; sign in to that one instead');
    throw new ArenaError('conflict', `username ${taken} is already taken`);
  }
}
