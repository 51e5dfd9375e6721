/** Accounts for people who sign in through an identity provider: linked by provider subject, then by verified email. */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '../../../infra/db/entities/user.entity';
import { UserIdentity } from '../../../infra/db/entities/user-identity.entity';
import { generatedUsername } from '../../../infra/domain/username';
import { isValidEmail, normaliseEmail } from './accounts';
import type { ProviderIdentity } from './oidc-client';

/**
 * The account an identity signs in to. An identity seen before keeps its account. A new one is
 * linked to the account with the same email only when the provider says the email is verified
 * (otherwise anyone could claim someone else's address there); failing that, a new account is
 * made, holding the email only if verified and not already used.
 */
export async function accountForIdentity(em: EntityManager, identity: ProviderIdentity, ip?: string): Promise<User> {
  for (let attempt = 0; ; attempt++) {
    const linked = await em.findOne(UserIdentity, { provider: identity.provider, subject: identity.subject }, { populate: ['user'] });
    if (linked) return linked.user.getEntity();

    const email = identity.email ? normaliseEmail(identity.email) : null;
    const verifiedEmail = email && identity.emailVerified && isValidEmail(email) ? email : null;
    const work = em.fork();
    const owner = verifiedEmail ? await work.findOne(User, { email: verifiedEmail }) : null;
    const user = owner ?? work.create(User, { username: generatedUsername(), email: verifiedEmail, registrationIp: ip ?? null });
    work.create(UserIdentity, { provider: identity.provider, subject: identity.subject, user });
    try {
      await work.flush();
    } catch (err) {
      // A parallel callback linked the same identity or took the email first: look again.
      if (err instanceof UniqueConstraintViolationException && attempt < 3) continue;
      throw err;
    }
    return em.findOneOrFail(User, user.id);
  }
}
