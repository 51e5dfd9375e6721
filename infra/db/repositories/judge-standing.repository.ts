/**
 * The owner of `judge_standings`: operator trust, establishment by age and agreement with the
 * operator's trusted judges, and voids;
 * and what the vote, the website and the operator CLI read of a judge's standing.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { ESTABLISHING_AGREEMENT, type EstablishingRules, type StandingOfJudge } from '../../../domain/judges';
import { onlyRow, run } from './sql';

/** A judge's standing, cluster and age as a vote reads them. */
export interface JudgeRecord extends StandingOfJudge {
  cluster: number;
}

/** The judge's standing; a judge with no row is a new one. */
export async function standingOf(em: EntityManager, judgeId: number): Promise<JudgeRecord | undefined> {
  const [row] = await run<JudgeRecord>(
    em,
    `select coalesce(s.established_at is not null, false) as established,
       coalesce(s.trusted_at is not null, false) as trusted, coalesce(s.voided_at is not null, false) as voided,
       coalesce(s.compared_votes, 0) as "comparedVotes", s.agreement,
       coalesce(s.contrary_agents, 0) as "contraryAgents",
       floor(extract(epoch from now() - u.created_at) / 86400)::int as "ageDays",
       coalesce(u.registration_cluster, u.id) as cluster
     from users u left join judge_standings s on s.judge_id = u.id where u.id = ?`,
    [judgeId],
  );
  return row;
}

/** Whether any judge is an operator's trusted one (not voided): without one, no vote counts. */
export async function arenaHasTrustedJudge(em: EntityManager): Promise<boolean> {
  const rows = await run<{ n: number }>(
    em,
    `select count(*)::int as n from judge_standings where trusted_at is not null and voided_at is null`,
  );
  return onlyRow(rows, 'trusted judges').n > 0;
}

/** An operator vouches for these judges: established at once (their votes count from the next refresh). */
export async function trustJudges(em: EntityManager, judgeIds: readonly number[]): Promise<void> {
  if (judgeIds.length === 0) return;
  await run(
    em,
    `insert into judge_standings (judge_id, trusted_at, established_at)
     select id, now(), now() from unnest(?::int[]) as j(id)
     on conflict (judge_id) do update set trusted_at = coalesce(judge_standings.trusted_at, now()),
       established_at = coalesce(judge_standings.established_at, now())`,
    [`{${judgeIds.join(',')}}`],
  );
}

/** An operator voids these judges' votes, for good, with the reason they gave (in the caller's transaction). */
export async function markJudgesVoided(em: EntityManager, judgeIds: readonly number[], reason: string): Promise<void> {
  if (judgeIds.length === 0) return;
  await run(
    em,
    `insert into judge_standings (judge_id, voided_at, void_reason)
     select id, now(), ? from unnest(?::int[]) as j(id)
     on conflict (judge_id) do update set voided_at = coalesce(judge_standings.voided_at, now()),
       void_reason = coalesce(judge_standings.void_reason, excluded.void_reason)`,
    [reason, `{${judgeIds.join(',')}}`],
  );
}

/** A battle's verdict relative to its pair (`domain/judges.ts`, pairVerdict): -1 the lower session won, 1 the higher, 0 neither. */
const pairVerdict = (b: string) =>
  `case when ${b}.winner not in ('a', 'b') then 0 when (${b}.winner = 'a') = (${b}.session_a_id = ${b}.pair_low) then -1 else 1 end`;

/**
 * For every judge with votes who is neither established nor voided: how many of their pool votes
 * were on pairs a trusted judge also voted on, and how far they agreed (`verdictAgreement` of
 * domain/judges.ts: 1 the same verdict, a half a winner against neither, 0 opposite winners;
 * averaged over the trusted judges on the pair, then over the pairs), with the agents on which
 * their votes went against the trusted judges' fit (`contrary`, by judge). Those who earn it
 * (`earnsEstablishment`) are established now, unless they are among `notNow` (flagged by this
 * refresh). Returns them.
 */
export async function establishJudges(
  em: EntityManager,
  rules: EstablishingRules,
  notNow: readonly number[],
  contrary: ReadonlyMap<number, number>,
): Promise<number[]> {
  const rows = await run<{ judge_id: number; established: boolean }>(
    em,
    `with candidates as (
       select distinct b.judge_id as id from battles b left join judge_standings s on s.judge_id = b.judge_id
       where b.status = 'voted' and s.established_at is null and s.voided_at is null),
     compared as (
       select c.judge_id, avg(case when ${pairVerdict('c')} = ${pairVerdict('e')} then 1.0
                                   when ${pairVerdict('c')} = 0 or ${pairVerdict('e')} = 0 then 0.5 else 0.0 end) as score
       from battles c
       join battles e on e.pair_low = c.pair_low and e.pair_high = c.pair_high and e.judge_id <> c.judge_id
         and e.status = 'voted' and e.voided_at is null
       join judge_standings x on x.judge_id = e.judge_id and x.trusted_at is not null and x.voided_at is null
       where c.judge_id in (select id from candidates) and c.status = 'voted' and not c.live and c.voided_at is null
         and not e.live
       group by c.judge_id, c.pair_low, c.pair_high),
     totals as (select judge_id, count(*)::int as votes, avg(score)::float8 as agreement from compared group by judge_id)
     insert into judge_standings (judge_id, compared_votes, agreement, contrary_agents, established_at)
     select c.id, coalesce(t.votes, 0), t.agreement, coalesce(k.agents, 0),
       case when u.created_at <= now() - make_interval(days => ?) and coalesce(t.votes, 0) >= ?
              and coalesce(t.agreement, 0) >= ? and coalesce(k.agents, 0) = 0 and not (c.id = any(?::int[])) then now() end
     from candidates c join users u on u.id = c.id left join totals t on t.judge_id = c.id
       left join unnest(?::int[], ?::int[]) as k(judge_id, agents) on k.judge_id = c.id
     on conflict (judge_id) do update set compared_votes = excluded.compared_votes, agreement = excluded.agreement,
       contrary_agents = excluded.contrary_agents,
       established_at = coalesce(judge_standings.established_at, excluded.established_at)
     returning judge_id, established_at is not null as established`,
    [
      rules.judgeEstablishDays,
      rules.judgeEstablishVotes,
      ESTABLISHING_AGREEMENT,
      `{${notNow.join(',')}}`,
      `{${[...contrary.keys()].join(',')}}`,
      `{${[...contrary.values()].join(',')}}`,
    ],
  );
  // Candidates were not established before: any that is now became so in this statement.
  return rows.filter((r) => r.established).map((r) => r.judge_id);
}

/** A judge as `arena judges` lists it. */
export interface JudgeListing {
  id: number;
  username: string;
  cluster: number;
  cluster_size: number;
  network: string | null;
  created_ms: number;
  trusted: boolean;
  established: boolean;
  voided: boolean;
  void_reason: string | null;
  compared_votes: number;
  agreement: number | null;
  votes: number;
  /** Published votes the last refresh counted on the boards. */
  counted: number;
  /** Published votes it left out, and votes out of judging not published (cast after their answers left it). */
  uncounted: number;
}

/** Every account that has voted, or that an operator trusted or voided: the most votes first. */
export function judgeListings(em: EntityManager): Promise<JudgeListing[]> {
  return run<JudgeListing>(
    em,
    `with judges as (
       select judge_id as id from battles where status = 'voted' union select judge_id from judge_standings)
     select u.id, u.username, coalesce(u.registration_cluster, u.id) as cluster,
       (select count(*)::int from users m where coalesce(m.registration_cluster, m.id) = coalesce(u.registration_cluster, u.id)) as cluster_size,
       u.registration_network as network, (extract(epoch from u.created_at) * 1000)::float8 as created_ms,
       coalesce(s.trusted_at is not null, false) as trusted, coalesce(s.established_at is not null, false) as established,
       coalesce(s.voided_at is not null, false) as voided, s.void_reason,
       coalesce(s.compared_votes, 0) as compared_votes, s.agreement,
       (select count(*)::int from battles b where b.judge_id = u.id and b.status = 'voted') as votes,
       (select count(*)::int from battles b join public_votes v on v.battle_id = b.id
        where b.judge_id = u.id and not exists (select 1 from uncounted_votes x where x.battle_id = b.id)) as counted,
       (select count(*)::int from battles b join uncounted_votes x on x.battle_id = b.id where b.judge_id = u.id) as uncounted
     from judges j join users u on u.id = j.id left join judge_standings s on s.judge_id = u.id
     order by votes desc, u.id`,
  );
}
