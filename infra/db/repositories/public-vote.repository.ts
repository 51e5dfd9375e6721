/** The owner of `public_votes`: which votes are published, with their board and style, and the pages the boards and the export read. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Verdict } from '../../../domain/arena';
import { run } from './sql';

/** A voted battle the next refresh may publish: both its answers have left judging. */
export interface VoteToPublish {
  battle_id: number;
  judge_id: number;
  agent_a_id: number;
  agent_b_id: number;
  winner: Verdict;
  prompt_category: string;
  response_a: string;
  response_b: string;
}

/** A battle's answer out of judging: never withheld again (`judging_until` only ever moves earlier, or passes). */
const OUT_OF_JUDGING = (s: string) => `coalesce(${s}.judging_until <= now(), true)`;

/**
 * Votes cast that will count but are not published yet: their answers are still in judging, or they
 * are ready and the next refresh publishes them. Voided votes, live and probation votes (never
 * counted), and those cast after an answer had left judging (never published), are not waiting for anything.
 */
export async function votesWaiting(em: EntityManager): Promise<number> {
  const [row] = await run<{ n: number }>(
    em,
    `select count(*)::int as n from battles b
     join sessions sa on sa.id = b.session_a_id
     join sessions sb on sb.id = b.session_b_id
     where b.status = 'voted' and b.voided_at is null and not b.live and b.judged_as in ('trusted', 'established')
       and not exists (select 1 from public_votes v where v.battle_id = b.id)
       and b.voted_at <= coalesce(sa.judging_until, b.voted_at) and b.voted_at <= coalesce(sb.judging_until, b.voted_at)`,
  );
  return row!.n;
}

/**
 * Up to `limit` votes ready to publish and not yet published, by battle after `afterBattle`. A vote
 * cast after one of its answers had left judging (its judge held the battle past the window, when
 * the answer's text was public) is never published, nor one an operator voided.
 */
export function votesToPublish(em: EntityManager, afterBattle: number, limit: number): Promise<VoteToPublish[]> {
  return run<VoteToPublish>(
    em,
    `select b.id as battle_id, b.judge_id, b.agent_a_id, b.agent_b_id, b.winner, p.category as prompt_category,
       coalesce(sa.response, '') as response_a, coalesce(sb.response, '') as response_b
     from battles b
     join prompts p on p.id = b.prompt_id
     join sessions sa on sa.id = b.session_a_id
     join sessions sb on sb.id = b.session_b_id
     where b.status = 'voted' and b.id > ? and b.voided_at is null
       and not exists (select 1 from public_votes v where v.battle_id = b.id)
       and ${OUT_OF_JUDGING('sa')} and ${OUT_OF_JUDGING('sb')}
       and b.voted_at <= coalesce(sa.judging_until, b.voted_at) and b.voted_at <= coalesce(sb.judging_until, b.voted_at)
     order by b.id limit ?`,
    [afterBattle, limit],
  );
}

/** A vote as published: its battle, board category, and each answer's style (`domain/ratings/style.ts`), with what the fit reads of it. */
export interface PublicVoteRow {
  battle_id: number;
  category: string;
  winner: Verdict;
  agent_a_id: number;
  agent_b_id: number;
  a_length: number;
  a_headers: number;
  a_list_items: number;
  a_bold: number;
  b_length: number;
  b_headers: number;
  b_list_items: number;
  b_bold: number;
}

/** Publishes votes, a few thousand per statement (in the caller's transaction). */
export async function publishVotes(em: EntityManager, rows: readonly PublicVoteRow[]): Promise<void> {
  for (let start = 0; start < rows.length; start += 2_000) {
    await run(
      em,
      `insert into public_votes (battle_id, category, published_at, a_length, a_headers, a_list_items, a_bold,
         b_length, b_headers, b_list_items, b_bold)
       select r.battle_id, r.category, now(), r.a_length, r.a_headers, r.a_list_items, r.a_bold,
         r.b_length, r.b_headers, r.b_list_items, r.b_bold
       from jsonb_to_recordset(?::jsonb) as r(battle_id int, category text, a_length int, a_headers int,
         a_list_items int, a_bold int, b_length int, b_headers int, b_list_items int, b_bold int)
       on conflict (battle_id) do nothing`,
      [JSON.stringify(rows.slice(start, start + 2_000))],
    );
  }
}

/** The categories of the pool's prompts: each has a board, as has `live`. */
export async function poolCategories(em: EntityManager): Promise<string[]> {
  const rows = await run<{ category: string }>(
    em,
    `select distinct category from prompts where source = 'pool' order by category`,
  );
  return rows.map((r) => r.category);
}

/** A published vote as the boards count it and the export lists it. */
export interface PublishedVote {
  battle_id: number;
  /** Set when an operator voided the vote: the next refresh leaves it out. */
  voided: boolean;
  prompt_id: number;
  category: string;
  judge_id: number;
  agent_a_id: number;
  agent_b_id: number;
  winner: Verdict;
  /** When the vote was cast, in milliseconds since the epoch. */
  voted_ms: number;
  a_length: number;
  a_headers: number;
  a_list_items: number;
  a_bold: number;
  b_length: number;
  b_headers: number;
  b_list_items: number;
  b_bold: number;
}

/**
 * Published votes by battle, `limit` at a time after `afterBattle`: the order the boards are
 * fitted in, so an export read in this order refits to the same numbers. `counted` leaves out
 * the votes the last refresh did not count (`uncounted_votes`: what the boards counted and the
 * export lists); without it every published vote comes back (the refresh, which decides afresh).
 */
export function publishedVotes(
  em: EntityManager,
  afterBattle: number,
  limit: number,
  { counted }: { counted: boolean },
): Promise<PublishedVote[]> {
  const unflagged = counted ? `and not exists (select 1 from uncounted_votes x where x.battle_id = v.battle_id)` : '';
  return run<PublishedVote>(
    em,
    `select v.battle_id, b.voided_at is not null as voided, b.prompt_id, v.category, b.judge_id, b.agent_a_id, b.agent_b_id, b.winner,
       (extract(epoch from b.voted_at) * 1000)::float8 as voted_ms,
       v.a_length, v.a_headers, v.a_list_items, v.a_bold, v.b_length, v.b_headers, v.b_list_items, v.b_bold
     from public_votes v join battles b on b.id = v.battle_id
     where v.battle_id > ? ${unflagged}
     order by v.battle_id limit ?`,
    [afterBattle, limit],
  );
}
