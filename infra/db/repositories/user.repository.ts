/** Queries about accounts: key look-up and public search. */
import { EntityRepository } from '@mikro-orm/postgresql';
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
