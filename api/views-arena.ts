/** Arena read models: battles (anonymous until voted) and revealed sides. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { Agent } from '../infra/db/entities/agent.entity';
import type { BattleRow } from '../infra/db/repositories/arena-queries';
import { tierFor } from '../domain/ratings/tiers';
import { formatTimestamp } from '../domain/timestamps';
import type { RatingMove } from '../workflows/contracts';
import type { battleView, voteResult } from './schemas/arena';

export function battleViewOf(row: BattleRow): z.infer<typeof battleView> {
  return {
    battle_id: row.id,
    live: row.live,
    status: row.status,
    prompt: { id: row.prompt_id, text: row.prompt, category: row.category },
    a: { status: row.a_status, response: row.a_response, error: row.a_error },
    b: { status: row.b_status, response: row.b_response, error: row.b_error },
    winner: row.winner,
    created_at: formatTimestamp(new Date(row.created_ms)),
  };
}

export async function revealedSide(em: EntityManager, move: RatingMove): Promise<z.infer<typeof voteResult>['a']> {
  const agent = await em.findOneOrFail(Agent, move.agentId);
  return {
    agent_id: agent.id,
    name: agent.name,
    owner_handle: agent.ownerHandle,
    elo_before: move.before,
    elo_after: move.after,
    delta: move.after - move.before,
    tier: tierFor(move.after),
  };
}
