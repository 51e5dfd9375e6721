/** Identity-provider identities of accounts: the account one signs in to, and linking one to a signed-in account. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '../infra/db/entities/user.entity';
import { placeInRegistrationCluster, type RegistrationOrigin } from '../infra/db/repositories/user.repository';
import { UserIdentity } from '../infra/db/entities/user-identity.entity';
import { ArenaError } from '../domain/errors';
import { generatedUsername } from '../domain/username';
import { isValidEmail, normaliseEmail } from './sign-in';

/** Who the identity provider says signed in. */
export interface ProviderIdentity {
  /** The provider's issuer URL, as its discovery document states it. */
  provider: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

export const EMAIL_IN_USE =
  'an account with this email already exists: sign in to it with its password, then link your identity provider on your account page';
export const LINKED_ELSEWHERE = 'this identity is already linked to another account';

/**
 * The account an identity signs in to. An identity seen before keeps its account. A new one
 * gets a new account, holding its email only when the provider says it is verified. It is never
 * joined to an account that already has that email: anyone may have signed up with someone
 * else's address and a password of their own (no email is sent to check it), and the owner
 * signing in here would land in that account. ArenaError `conflict` says to sign in with the password
 * and link from the account page instead.
 */
export async function accountForIdentity(
  em: EntityManager,
  identity: ProviderIdentity,
  origin?: RegistrationOrigin,
): Promise<User> {
  for (let attempt = 0; ; attempt++) {
    const linked = await em.findOne(
      UserIdentity,
      { provider: identity.provider, subject: identity.subject },
      { populate: ['user'] },
    );
    if (linked) return linked.user.getEntity();

    const email = identity.email ? normaliseEmail(identity.email) : null;
    const verifiedEmail = email && identity.emailVerified && isValidEmail(email) ? email : null;
    if (verifiedEmail && (await em.count(User, { email: verifiedEmail })) > 0)
      throw new ArenaError('conflict', EMAIL_IN_USE);
    const work = em.fork();
    const user = work.create(User, {
      username: generatedUsername(),
      email: verifiedEmail,
      registrationIp: origin?.ip ?? null,
    });
    work.create(UserIdentity, { provider: identity.provider, subject: identity.subject, user });
    try {
      await work.flush();
    } catch (err) {
      // A parallel callback linked the same identity or took the email first: look again.
      if (err instanceof UniqueConstraintViolationException && attempt < 3) continue;
      throw err;
    }
    if (origin) await placeInRegistrationCluster(work, user.id, origin.network);
    return em.findOneOrFail(User, user.id);
  }
}

/** Links an identity to a signed-in account (again is fine); ArenaError `conflict` when another account has it. */
export async function linkIdentity(em: EntityManager, user: User, identity: ProviderIdentity): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const linked = await em.findOne(UserIdentity, { provider: identity.provider, subject: identity.subject });
    if (linked) {
      if (linked.user.id === user.id) return;
      throw new ArenaError('conflict', LINKED_ELSEWHERE);
    }
    const work = em.fork();
    work.create(UserIdentity, {
      provider: identity.provider,
      subject: identity.subject,
      user: work.getReference(User, user.id),
    });
    try {
      await work.flush();
      return;
    } catch (err) {
      if (err instanceof UniqueConstraintViolationException && attempt < 3) continue;
      throw err;
    }
  }
}

/** The identities an account can sign in with, oldest first, for its account page. */
export function identitiesOf(em: EntityManager, userId: number): Promise<UserIdentity[]> {
  return em.find(UserIdentity, { user: userId }, { orderBy: { createdAt: 'asc' } });
}
