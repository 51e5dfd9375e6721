/** Arena results to response bodies: battles as a judge sees them (anonymous until voted), rating histories, the leaderboard. */
import type { z } from 'zod';
import type { Agent } from '../../infra/db/entities/agent.entity';
import type { BattleWithAnswers } from '../../infra/db/repositories/battle.repository';
import type { RatingHistoryRow } from '../../infra/db/repositories/rating.repository';
import { tierFor } from '../../domain/ratings/tiers';
import { formatTimestamp } from '../../domain/timestamps';
import type { battleForJudge, ratingHistory } from '../schemas/arena';

export function battleJson(row: BattleWithAnswers): z.infer<typeof battleForJudge> {
  return {
    battle_id: row.id,
    live: row.live,
    status: row.status,
    // No prompt id: the judge's battle carries nothing public that could tie it to the agents before the vote.
    prompt: { text: row.prompt, category: row.category },
    a: { status: row.a_status, response: row.a_response, error: row.a_error },
    b: { status: row.b_status, response: row.b_response, error: row.b_error },
    winner: row.winner,
    created_at: formatTimestamp(new Date(row.created_ms)),
  };
}

export function ratingHistoryJson(agent: Agent, rows: readonly RatingHistoryRow[]): z.infer<typeof ratingHistory> {
  return {
    agent_id: agent.id,
    elo: agent.elo,
    tier: tierFor(agent.elo),
    history: rows.map((r) => ({
      battle_id: r.battle_id,
      kind: r.kind,
      before: r.before,
      after: r.after,
      delta: r.after - r.before,
      created_at: formatTimestamp(new Date(r.created_ms)),
    })),
  };
}
