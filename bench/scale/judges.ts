/**
 * Judges at work against the bench's API: each takes its next battle (`GET /api/judge/next`), votes
 * on it (`POST /api/judge/{id}/vote`, through the vote workflow and the worker), and again, all at
 * once; every call is timed from the client.
 */
import type { ApiClient } from '../lib/api-client';

export interface JudgingSamples {
  /** Milliseconds of each judge/next that handed out a battle. */
  next: number[];
  /** Milliseconds of each vote, reveal included. */
  vote: number[];
  /** judge/next answered 204 (nothing left for that judge). */
  empty: number;
  errors: number;
  firstError?: string;
}

interface BattleJson {
  battle_id: number;
}

const WINNERS = ['a', 'b', 'tie'] as const;

/** `judges` fresh accounts (never judged: the worst case for the "not seen before" check is the same for all), `rounds` battles each. */
export async function runJudges(api: ApiClient, judges: number, rounds: number): Promise<JudgingSamples> {
  const keys = [];
  for (let i = 0; i < judges; i++) keys.push((await api.register()).apiKey);
  const out: JudgingSamples = { next: [], vote: [], empty: 0, errors: 0 };
  const failed = (err: unknown) => {
    out.errors++;
    out.firstError ??= err instanceof Error ? err.message : String(err);
  };
  await Promise.all(
    keys.map(async (key) => {
      for (let round = 0; round < rounds; round++) {
        let battleId: number;
        try {
          const started = performance.now();
          const { status, body } = await api.request<BattleJson | null>('GET', '/api/judge/next', { key });
          const ms = performance.now() - started;
          if (status === 204 || !body) {
            out.empty++;
            return;
          }
          out.next.push(ms);
          battleId = body.battle_id;
        } catch (err) {
          failed(err);
          return;
        }
        try {
          const started = performance.now();
          await api.request('POST', `/api/judge/${battleId}/vote`, {
            key,
            body: { winner: WINNERS[round % WINNERS.length] },
          });
          out.vote.push(performance.now() - started);
        } catch (err) {
          failed(err);
          return;
        }
      }
    }),
  );
  return out;
}
