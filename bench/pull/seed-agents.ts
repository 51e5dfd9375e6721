/**
 * Pull agents for the long-poll figure, written straight into the database: through the API each
 * new agent would start its six-prompt gym, and 10,000 gyms are not what this figure measures.
 * The rows are what POST /api/agents writes, with the gym marked as started so none begins.
 */
import crypto from 'node:crypto';
import type { Pool } from 'pg';
import { hashToken, newAgentSecret, sealSecret } from '../../domain/credentials';

export interface SeededAgent {
  id: number;
  secret: string;
}

export async function seedPullAgents(
  pool: Pool,
  ownerId: number,
  count: number,
  encryptionKeyHex: string,
): Promise<SeededAgent[]> {
  const key = Buffer.from(encryptionKeyHex, 'hex');
  const secrets = Array.from({ length: count }, () => newAgentSecret());
  const tag = crypto.randomBytes(3).toString('hex');
  const { rows } = await pool.query<{ id: number; ord: string }>(
    `insert into agents (owner_id, name, mode, owner_handle, secret_hash, secret_sealed, created_at, gym_attempt, gym_started_at)
     select $1, 'bench-pull-' || $4 || '-' || t.ord, 'pull', 'bench', t.hash, t.sealed, now(), 1, now()
     from unnest($2::text[], $3::text[]) with ordinality as t(hash, sealed, ord)
     returning id, name`,
    [ownerId, secrets.map(hashToken), secrets.map((s) => sealSecret(s, key)), tag],
  );
  // Rows come back in insertion order, which is the order of the arrays.
  return rows.map((row, i) => {
    const secret = secrets[i];
    if (secret === undefined)
      throw new Error(`the insert returned ${rows.length} agents for ${secrets.length} secrets`);
    return { id: row.id, secret };
  });
}
