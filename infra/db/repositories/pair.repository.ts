/**
 * The owner of `arena_pairs`: pairs made when a pool answer is recorded, the open pair handed to a
 * judge, the votes they collect, and which answers have every pair voted.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { run } from './sql';

/** How many of a prompt's latest answers a new answer's opponents are chosen from: what bounds the scan. */
export const PAIRING_CANDIDATES = 100;
/** Each pair an opponent already has weighs as much as this many points of Elo distance. */
export const ELO_POINTS_PER_PAIR = 100;

/**
 * Pairs a just-answered pool session with at most `limit` answers recorded before it to the same
 * prompt, from agents of other owners that are not deactivated, still in judging (an answer
 * that left it is public, and would unmask the pair). Of the prompt's latest answers
 * (`PAIRING_CANDIDATES`, newest first by id), the chosen are those with the smallest
 * `|Elo difference| + ELO_POINTS_PER_PAIR * pairs the opponent already has`, the newest first on a
 * tie. Nothing for other prompts (live, gym, sandbox). Returns the number of pairs made.
 *
 * The prompt row is locked first, so two answers recorded at once are paired in turn and the
 * second sees the first (each transaction's later statements see what the other committed).
 */
export async function pairNewAnswer(em: EntityManager, sessionId: number, limit: number): Promise<number> {
  await run(em, `select p.id from prompts p join sessions s on s.prompt_id = p.id where s.id = ? for update of p`, [
    sessionId,
  ]);
  const rows = await run<{ id: number }>(
    em,
    `insert into arena_pairs (prompt_id, session_low_id, session_high_id, agent_low_id, agent_high_id, owner_low_id, owner_high_id)
     select n.prompt_id, least(c.id, n.id), greatest(c.id, n.id),
       case when c.id < n.id then c.agent_id else n.agent_id end, case when c.id < n.id then n.agent_id else c.agent_id end,
       case when c.id < n.id then c.owner_id else n.owner_id end, case when c.id < n.id then n.owner_id else c.owner_id end
     from (select s.id, s.prompt_id, s.agent_id, a.owner_id, a.elo
           from sessions s join agents a on a.id = s.agent_id join prompts p on p.id = s.prompt_id
           where s.id = ? and s.kind = 'main' and s.status = 'answered' and p.source = 'pool') n
     cross join lateral (
       select t.id, t.agent_id, o.owner_id, o.elo
       from sessions t join agents o on o.id = t.agent_id
       where t.prompt_id = n.prompt_id and t.kind = 'main' and t.status = 'answered' and t.id <> n.id
         and o.owner_id <> n.owner_id and not o.deactivated and length(trim(t.response)) > 0
         -- An answer already out of judging is public: a judge could search the feed for its text.
         and t.judging_until > now()
       order by t.id desc
       limit ?) c
     order by abs(c.elo - n.elo)
       + ? * ((select count(*) from arena_pairs q where q.session_low_id = c.id)
            + (select count(*) from arena_pairs q where q.session_high_id = c.id)),
       c.id desc
     limit ?
     on conflict do nothing
     returning id`,
    [sessionId, PAIRING_CANDIDATES, ELO_POINTS_PER_PAIR, limit],
  );
  return rows.length;
}

/**
 * The statement's first part that takes the least-shown open pair a judge may judge (neither agent
 * theirs, never handed to them before) and counts it shown, closing it at the cap: the CTE `taken`
 * with the pair's prompt, sessions and agents. Read through the partial index on open pairs, so
 * the cost does not depend on how many answers a prompt has; locked rows are skipped, so
 * concurrent judges never take a pair past its cap. Parameters: judge id three times, the cap.
 */
export const TAKE_OPEN_PAIR = `picked as (
       select p.id from arena_pairs p
       where p.open and p.owner_low_id <> ? and p.owner_high_id <> ?
         and not exists (select 1 from battles j
                         where j.judge_id = ? and j.pair_low = p.session_low_id and j.pair_high = p.session_high_id)
       order by p.shown, p.id
       limit 1
       for update skip locked),
     taken as (
       update arena_pairs p set shown = p.shown + 1, open = p.shown + 1 < ?
       from picked where p.id = picked.id
       returning p.prompt_id, p.session_low_id, p.session_high_id, p.agent_low_id, p.agent_high_id)`;

/** One more vote on a pool battle's pair (no pair, e.g. a battle older than pairs: nothing). */
export async function countPairVote(em: EntityManager, low: number, high: number): Promise<void> {
  await run(em, `update arena_pairs set votes = votes + 1 where session_low_id = ? and session_high_id = ?`, [
    low,
    high,
  ]);
}

/** Of a pair's two sessions, the ones whose every pair has at least `votesPerPair` votes. */
export async function sessionsFullyVoted(
  em: EntityManager,
  low: number,
  high: number,
  votesPerPair: number,
): Promise<number[]> {
  const rows = await run<{ id: number }>(
    em,
    `select s.id from (values (?::int), (?::int)) as s(id)
     where exists (select 1 from arena_pairs p where p.session_low_id = s.id or p.session_high_id = s.id)
       and not exists (select 1 from arena_pairs p where p.session_low_id = s.id and p.votes < ?)
       and not exists (select 1 from arena_pairs p where p.session_high_id = s.id and p.votes < ?)`,
    [low, high, votesPerPair, votesPerPair],
  );
  return rows.map((r) => r.id);
}

/**
 * A deactivated agent's answers are judged no more: pairs nobody was handed are dropped (so its
 * opponents can still leave judging by their other pairs), the rest are closed.
 */
export async function withdrawPairsOf(em: EntityManager, agentId: number): Promise<void> {
  const mine = `(select id from sessions where agent_id = ? and kind = 'main')`;
  await run(
    em,
    `delete from arena_pairs where shown = 0 and (session_low_id in ${mine} or session_high_id in ${mine})`,
    [agentId, agentId],
  );
  await run(
    em,
    `update arena_pairs set open = false where open and (session_low_id in ${mine} or session_high_id in ${mine})`,
    [agentId, agentId],
  );
}
