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
 * prompt, from agents of other owners that are not deactivated, still in judging for at least
 * `marginSeconds` (an answer that left it is public, and would unmask the pair; one about to leave
 * could not be judged in time). Of the prompt's latest answers (`PAIRING_CANDIDATES`, newest first
 * by id), the chosen are those with the smallest
 * `|Elo difference| + ELO_POINTS_PER_PAIR * pairs the opponent already has`, the newest first on a
 * tie. A pair is due when the first of its answers leaves judging. Nothing for other prompts (live,
 * gym, sandbox). Returns the number of pairs made.
 *
 * The prompt row is locked first, so two answers recorded at once are paired in turn and the
 * second sees the first (each transaction's later statements see what the other committed).
 */
export async function pairNewAnswer(
  em: EntityManager,
  sessionId: number,
  limit: number,
  marginSeconds: number,
): Promise<number> {
  await run(em, `select p.id from prompts p join sessions s on s.prompt_id = p.id where s.id = ? for update of p`, [
    sessionId,
  ]);
  const rows = await run<{ id: number }>(
    em,
    `insert into arena_pairs (prompt_id, session_low_id, session_high_id, agent_low_id, agent_high_id, owner_low_id, owner_high_id, due_at)
     select n.prompt_id, least(c.id, n.id), greatest(c.id, n.id),
       case when c.id < n.id then c.agent_id else n.agent_id end, case when c.id < n.id then n.agent_id else c.agent_id end,
       case when c.id < n.id then c.owner_id else n.owner_id end, case when c.id < n.id then n.owner_id else c.owner_id end,
       least(c.judging_until, n.judging_until)
     from (select s.id, s.prompt_id, s.agent_id, a.owner_id, a.elo, s.judging_until
           from sessions s join agents a on a.id = s.agent_id join prompts p on p.id = s.prompt_id
           where s.id = ? and s.kind = 'main' and s.status = 'answered' and p.source = 'pool') n
     cross join lateral (
       select t.id, t.agent_id, o.owner_id, o.elo, t.judging_until
       from sessions t join agents o on o.id = t.agent_id
       where t.prompt_id = n.prompt_id and t.kind = 'main' and t.status = 'answered' and t.id <> n.id
         and o.owner_id <> n.owner_id and not o.deactivated and length(trim(t.response)) > 0
         -- An answer already out of judging is public: a judge could search the feed for its text.
         and t.judging_until > now() + make_interval(secs => ?)
       order by t.id desc
       limit ?) c
     order by abs(c.elo - n.elo)
       + ? * ((select count(*) from arena_pairs q where q.session_low_id = c.id)
            + (select count(*) from arena_pairs q where q.session_high_id = c.id)),
       c.id desc
     limit ?
     on conflict do nothing
     returning id`,
    [sessionId, marginSeconds, PAIRING_CANDIDATES, ELO_POINTS_PER_PAIR, limit],
  );
  return rows.length;
}

/** Who asks judge/next for a pair: the account and the client address the request came from. */
export interface PairTaker {
  judgeId: number;
  /** `api/client-address.ts`: an IPv4 address, or an IPv6 /64. */
  network: string;
}

/** How pairs are handed out: the judges a pair gets, the judging window and the least of it a judge is handed. */
export interface HandOutRules {
  votesPerPair: number;
  windowSeconds: number;
  marginSeconds: number;
}

/**
 * Battles an address or a cluster may take with one agent before the share rule applies: below
 * this, a newcomer to a small arena is never refused; past it, no address or cluster may hold more
 * than half of the battles handed out with that agent.
 */
export const SHARE_FLOOR = 10;

/**
 * The statement's first part that takes the open pair due first that a judge may judge and counts
 * it shown, closing it at the cap: the CTEs `me` (the judge: cluster, address, operator's trust),
 * `taken` (the pair's prompt, sessions and agents), `started` and `rescheduled` (a pair handed out
 * starts its answers' judging window: they, and their other pairs, are due by its end), and
 * `exposed` (the battles handed out with each agent, per address and cluster).
 *
 * A judge may take a pair when: neither agent is theirs; both answers have at least the margin of
 * judging left; they never had it; a judge in probation, only when a trusted judge had it (so its
 * votes are compared, and a flood of new accounts cannot take the pairs the trusted judges would:
 * they have first call; with no trusted judge in the arena, any pair); and, unless an operator trusts them, neither agent is of an
 * owner in their registration cluster, no account of their address or cluster had the pair, and
 * neither holds more than half of either agent's battles (past `SHARE_FLOOR`). Read through the partial index on
 * open pairs by due time, so the cost does not depend on how many answers a prompt has; locked rows
 * are skipped, so concurrent judges never take a pair past its cap nor wait for each other's pairs.
 * Parameters: see `takeOpenPairParams`.
 */
export const TAKE_OPEN_PAIR = `me as (
       select u.id, coalesce(u.registration_cluster, u.id) as cluster, ?::text as network,
         coalesce(s.trusted_at is not null and s.voided_at is null, false) as trusted,
         coalesce(s.established_at is not null and s.voided_at is null, false) as established,
         exists (select 1 from judge_standings t where t.trusted_at is not null and t.voided_at is null) as has_trusted
       from users u left join judge_standings s on s.judge_id = u.id where u.id = ?),
     picked as (
       select p.id from arena_pairs p cross join me
       join sessions sl on sl.id = p.session_low_id join sessions sh on sh.id = p.session_high_id
       join users ol on ol.id = p.owner_low_id join users oh on oh.id = p.owner_high_id
       where p.open and p.due_at > now() + make_interval(secs => ?)
         and sl.judging_until > now() + make_interval(secs => ?) and sh.judging_until > now() + make_interval(secs => ?)
         and p.owner_low_id <> me.id and p.owner_high_id <> me.id
         -- A judge in probation is compared: it takes only pairs a trusted judge has (the trusted get first call).
         and (me.established or not me.has_trusted or p.trusted_shown > 0)
         and (me.trusted or (coalesce(ol.registration_cluster, ol.id) <> me.cluster
                             and coalesce(oh.registration_cluster, oh.id) <> me.cluster))
         and not exists (select 1 from battles j
                         where j.pair_low = p.session_low_id and j.pair_high = p.session_high_id
                           and (j.judge_id = me.id or (not me.trusted and (j.judge_network = me.network or j.judge_cluster = me.cluster))))
         and (me.trusted or not exists (
               select 1 from (values (p.agent_low_id), (p.agent_high_id)) as side(agent_id)
               cross join (values ('address:' || me.network), ('cluster:' || me.cluster)) as src(source)
               join judge_exposures e on e.agent_id = side.agent_id and e.source = src.source
               where e.battles >= greatest(${SHARE_FLOOR},
                 0.5 * (select t.battles from judge_exposures t where t.agent_id = side.agent_id and t.source = ''))))
       order by p.due_at, p.id
       limit 1
       for update of p skip locked),
     taken as (
       update arena_pairs p set shown = p.shown + 1, open = p.shown + 1 < ?,
         trusted_shown = p.trusted_shown + case when me.trusted then 1 else 0 end,
         due_at = least(p.due_at, now() + make_interval(secs => ?))
       from picked cross join me where p.id = picked.id
       returning p.id, p.prompt_id, p.session_low_id, p.session_high_id, p.agent_low_id, p.agent_high_id),
     started as (
       update sessions s set judging_until = now() + make_interval(secs => ?)
       where s.id in (select t.id from sessions t join taken on t.id in (taken.session_low_id, taken.session_high_id)
                      where t.judging_until > now() + make_interval(secs => ?) for update of t skip locked)
       returning s.id),
     rescheduled as (
       update arena_pairs q set due_at = now() + make_interval(secs => ?)
       where q.id in (select r.id from arena_pairs r join taken
                        on r.session_low_id in (taken.session_low_id, taken.session_high_id)
                        or r.session_high_id in (taken.session_low_id, taken.session_high_id)
                      where r.open and r.id <> taken.id and r.due_at > now() + make_interval(secs => ?)
                      for update of r skip locked)
       returning q.id),
     exposed as (
       insert into judge_exposures (agent_id, source, battles)
       select side.agent_id, src.source, 1 from taken cross join me
       cross join lateral (values (taken.agent_low_id), (taken.agent_high_id)) as side(agent_id)
       cross join lateral (values (''), ('address:' || me.network), ('cluster:' || me.cluster)) as src(source)
       -- One order for every judge's locks on these rows, so two judges never wait on each other.
       order by side.agent_id, src.source
       on conflict (agent_id, source) do update set battles = judge_exposures.battles + 1
       returning 1)`;

/** The parameters of TAKE_OPEN_PAIR, in order. */
export function takeOpenPairParams(taker: PairTaker, rules: HandOutRules): unknown[] {
  const { windowSeconds: window, marginSeconds: margin } = rules;
  return [
    taker.network,
    taker.judgeId,
    margin,
    margin,
    margin,
    rules.votesPerPair,
    window,
    window,
    window,
    window,
    window,
  ];
}

/** Open pairs whose answers are due out of judging: handed out no more, and no longer in the open pairs' index. */
export async function closeOverduePairs(em: EntityManager): Promise<void> {
  await run(em, `update arena_pairs set open = false where open and due_at <= now()`);
}

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
