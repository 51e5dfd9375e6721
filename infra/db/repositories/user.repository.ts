/** Queries about accounts: key look-up and public search. */
import { EntityRepository, type EntityManager } from '@mikro-orm/postgresql';
import type { User } from '../entities/user.entity';
import { run } from './sql';

export interface UserSearchPage {
  total: number;
  users: Array<User & { agentCount: number }>;
}

/** Escapes LIKE wildcards so a search for `50%` means the characters, not a pattern. */
function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Where a new account was made from: the request's address, and its network (`api/client-address.ts`). */
export interface RegistrationOrigin {
  ip: string;
  network: string;
}

/**
 * Places a new account in its registration cluster: the cluster of the account registered last from
 * the same network, if that was within a day, else a cluster of its own. Also records the network.
 */
export async function placeInRegistrationCluster(em: EntityManager, userId: number, network: string): Promise<void> {
  await run(
    em,
    `update users u set registration_network = ?, registration_cluster = coalesce(
       (select coalesce(p.registration_cluster, p.id) from users p
        where p.registration_network = ? and p.id <> u.id
          and p.created_at <= u.created_at and p.created_at >= u.created_at - interval '1 day'
        order by p.created_at desc, p.id desc limit 1), u.id)
     where u.id = ?`,
    [network, network, userId],
  );
}

/** The accounts a name stands for: a username, or `cluster:<id>` for every account of that registration cluster. */
export async function accountsNamed(em: EntityManager, name: string): Promise<Array<{ id: number; username: string }>> {
  const cluster = /^cluster:(\d{1,9})$/.exec(name);
  return cluster
    ? run(em, `select id, username from users where coalesce(registration_cluster, id) = ? order by id`, [
        Number(cluster[1]),
      ])
    : run(em, `select id, username from users where username = ?`, [name.toLowerCase()]);
}

export class UserRepository extends EntityRepository<User> {
  /** The account that owns an API key, by the key's hash; also notes when the key was last used. */
  async findByApiKeyHash(keyHash: string): Promise<User | null> {
    const rows = await run<{ user_id: number }>(
      this.getEntityManager(),
      "update api_keys set last_used_at = now() at time zone 'utc' where key_hash = ? returning user_id",
      [keyHash],
    );
    return rows[0] ? this.findOne({ id: rows[0].user_id }) : null;
  }

  async search(query: string, page: number, pageSize: number): Promise<UserSearchPage> {
    const pattern = likePattern(query);
    const where = query ? { $or: [{ username: { $ilike: pattern } }, { displayName: { $ilike: pattern } }] } : {};
    const [users, total] = await this.findAndCount(where, {
      orderBy: { id: 'asc' },
      limit: pageSize,
      offset: (page - 1) * pageSize,
    });
    const counts = await this.agentCounts(users.map((u) => u.id));
    return { total, users: users.map((u) => Object.assign(u, { agentCount: counts.get(u.id) ?? 0 })) };
  }

  /** Number of agents per owner, in one query. */
  async agentCounts(ownerIds: number[]): Promise<Map<number, number>> {
    if (ownerIds.length === 0) return new Map();
    const rows = await run<{ owner_id: number; n: number }>(
      this.getEntityManager(),
      `select owner_id, count(*)::int as n from agents where owner_id in (${ownerIds.map(() => '?').join(',')}) group by owner_id`,
      ownerIds,
    );
    return new Map(rows.map((r) => [r.owner_id, r.n]));
  }
}
