/**
 * The scale figure's arena, written straight into PostgreSQL in set-based statements: owners,
 * agents and pool prompts once, then main answers with their candidate pairs and votes grown step
 * by step. No deliveries: only the rows judging and dispatch read.
 */
import type { Pool } from 'pg';

/** Every row the bench writes is named with this, so nothing else in the database is mistaken for it. */
const TAG = 'bs';
/** Users who cast the seeded votes: never an owner, so any pair is theirs to judge. */
const SEEDED_JUDGES = 1_000;
/** Candidate pairs per new answer, as ARENA_PAIRS_PER_ANSWER's default. */
export const PAIRS_PER_ANSWER = 4;

export interface ScaleArena {
  agentIds: number[];
  promptIds: number[];
  judgeIds: number[];
  /** Main answers and votes seeded so far. */
  answers: number;
  votes: number;
}

/** Owners, their agents (pull, gym done: due for dispatch) and the pool; the pool prompts the stack seeded are retired. */
export async function seedScaleArena(
  pool: Pool,
  size: { agents: number; owners: number; prompts: number },
): Promise<ScaleArena> {
  const ids = async (sql: string, params: unknown[]) =>
    (await pool.query<{ id: number }>(sql, params)).rows.map((r) => r.id);
  const ownerIds = await ids(
    `insert into users (username, created_at) select $1 || '-o-' || g, now() from generate_series(1, $2::int) g returning id`,
    [TAG, size.owners],
  );
  const judgeIds = await ids(
    `insert into users (username, created_at) select $1 || '-j-' || g, now() from generate_series(1, $2::int) g returning id`,
    [TAG, SEEDED_JUDGES],
  );
  // The seeded votes' judges are established (an operator's trust), so the refresh counts every vote.
  await pool.query(
    `insert into judge_standings (judge_id, trusted_at, established_at) select id, now(), now() from unnest($1::int[]) as j(id)`,
    [judgeIds],
  );
  // Ratings spread as a live arena's are, so the seeded votes carry information for the refit.
  const agentIds = await ids(
    `insert into agents (owner_id, name, mode, owner_handle, secret_hash, secret_sealed, elo, gym_complete, gym_attempt,
                         gym_started_at, gym_completed_at, ping_ok, created_at)
     select ($1::int[])[(g - 1) % cardinality($1::int[]) + 1], $2 || '-a-' || g, 'pull', $2 || '-o-' || ((g - 1) % cardinality($1::int[]) + 1),
       md5($2 || g), 'unused', 1500 + round(200 * sqrt(-2 * ln(1 - random())) * cos(2 * pi() * random()))::int,
       true, 1, now() - interval '30 days', now() - interval '30 days', true, now() - interval '30 days'
     from generate_series(1, $3::int) g order by g returning id`,
    [ownerIds, TAG, size.agents],
  );
  await pool.query(`update prompts set retired_at = now() where source = 'pool' and retired_at is null`);
  const promptIds = await ids(
    `insert into prompts (source, slug, category, text, created_at)
     select 'pool', $1 || '-p-' || g, (array['coding', 'writing', 'research', 'reasoning', 'analysis', 'safety', 'math'])[g % 7 + 1],
       'Pool prompt ' || g || ' of the scale figure.', now() - interval '30 days'
     from generate_series(1, $2::int) g order by g returning id`,
    [TAG, size.prompts],
  );
  return { agentIds: sorted(agentIds), promptIds: sorted(promptIds), judgeIds, answers: 0, votes: 0 };
}

function sorted(values: number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/**
 * Answer k goes to prompt k mod P from agent (k div P + (k mod P) * A/P) mod A: each prompt's
 * answers come from distinct agents (at most A per prompt, so at most A * P answers), and the
 * first A answers give every agent one. Pure, so the unit tests pin it down.
 */
export function answerSlot(k: number, agents: number, prompts: number): { agent: number; prompt: number } {
  const prompt = k % prompts;
  const round = Math.floor(k / prompts);
  return { agent: (round + prompt * Math.floor(agents / prompts)) % agents, prompt };
}

/**
 * Grows the arena to `answers` main answers (created a day ago, still in judging) and as many
 * votes, published as the refresh publishes them. Each new answer is paired with the (up to) `PAIRS_PER_ANSWER` answers to its prompt just
 * before it from other owners, in the order answers are recorded, as pairing does when the
 * opponents with the fewest pairs are the newest; votes go to the least-shown pairs by id, as
 * judge/next hands them out, decided by the agents' ratings. Then VACUUM ANALYZE, as autovacuum
 * would have in a live arena, so plans are the ones production would get.
 */
export async function growScaleArena(pool: Pool, arena: ScaleArena, answers: number): Promise<void> {
  const agents = arena.agentIds.length;
  const prompts = arena.promptIds.length;
  if (answers > agents * prompts)
    throw new Error(`at most ${agents * prompts} answers: each agent answers each pool prompt once`);
  const { rows } = await pool.query<{ id: number }>(`select coalesce(max(id), 0)::int as id from sessions`);
  const lastBefore = rows[0]?.id ?? 0;
  // One transaction without foreign-key checks (the bench's database user is its superuser): the
  // rows are made from ids just read, and checking millions of references would take most of the
  // seeding's time.
  const db = await pool.connect();
  try {
    await db.query('begin');
    await db.query('set local session_replication_role = replica');
    await db.query(
      `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, response, latency_ms,
                           agent_latency_ms, sent_at, completed_at, created_at, judging_until)
     select ($1::int[])[((k / $4::int) + (k % $4::int) * ($3::int / $4::int)) % $3::int + 1], 'main', ($2::int[])[k % $4::int + 1],
       'pull', 'bench', 60,
       'answered', 'Answer ' || k || ' of the scale figure.', 1200, 1100, t, t, t, now() + interval '7 days'
     from generate_series($5::int, $6::int - 1) k, (select now() - interval '1 day' as t) c
     order by k`,
      [arena.agentIds, arena.promptIds, agents, prompts, arena.answers, answers],
    );
    // The new answers counted before they are paired: with the statistics of the smaller arena,
    // the planner took the new answers (id above the last) for a handful and nested its loops
    // over a million.
    await db.query('analyze sessions');
    await db.query(
      `with ranked as (
       select s.id, s.prompt_id, s.agent_id, a.owner_id, row_number() over (partition by s.prompt_id order by s.id) as r
       from sessions s join agents a on a.id = s.agent_id
       where s.kind = 'main' and s.status = 'answered' and s.prompt_id = any($1::int[]))
     insert into arena_pairs (prompt_id, session_low_id, session_high_id, agent_low_id, agent_high_id, owner_low_id, owner_high_id, due_at)
     select n.prompt_id, o.id, n.id, o.agent_id, n.agent_id, o.owner_id, n.owner_id, now() + interval '7 days'
     from ranked n cross join generate_series(1, $3::int) d
       join ranked o on o.prompt_id = n.prompt_id and o.r = n.r - d
     where n.id > $2 and o.owner_id <> n.owner_id
     order by n.id, d`,
      [arena.promptIds, lastBefore, PAIRS_PER_ANSWER],
    );
    await db.query(
      `with chosen as (
       select p.id, p.prompt_id, p.session_low_id, p.session_high_id, p.agent_low_id, p.agent_high_id,
         1 / (1 + power(10, (h.elo - l.elo) / 400.0)) as low_wins
       from arena_pairs p join agents l on l.id = p.agent_low_id join agents h on h.id = p.agent_high_id
       where p.open and p.shown = 0
       order by p.id
       limit $1),
     cast_votes as (
       insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high,
                            live, status, winner, judged_as, voted_at, created_at)
       select c.prompt_id, ($2::int[])[c.id % cardinality($2::int[]) + 1], c.session_low_id, c.session_high_id,
         c.agent_low_id, c.agent_high_id, c.session_low_id, c.session_high_id, false, 'voted',
         case when u < 0.1 then 'tie' when u < 0.1 + 0.9 * c.low_wins then 'a' else 'b' end, 'trusted',
         now() - interval '12 hours', now() - interval '12 hours'
       from chosen c, lateral (select random() + 0 * c.id as u) r)
     update arena_pairs p set shown = 1, votes = 1 from chosen c where p.id = c.id`,
      [answers - arena.votes, arena.judgeIds],
    );
    // The votes as earlier refreshes would have published them had their answers left judging,
    // each answer with a style of its own (spread by hashing the battle id), so the refresh fits
    // every board from a full table.
    await db.query(
      `insert into public_votes (battle_id, category, published_at, a_length, a_headers, a_list_items, a_bold,
         b_length, b_headers, b_list_items, b_bold)
       select b.id, p.category, now(), 200 + h * 7919 % 2800, h * 31 % 4, h * 17 % 9, h * 13 % 5,
         200 + h * 104729 % 2800, h * 37 % 4, h * 23 % 9, h * 11 % 5
       from battles b join prompts p on p.id = b.prompt_id, lateral (select b.id::bigint as h) k
       where b.status = 'voted' and b.prompt_id = any($1::int[])
         and not exists (select 1 from public_votes v where v.battle_id = b.id)`,
      [arena.promptIds],
    );
    await db.query(
      `update prompts p set answer_count = c.n
     from (select prompt_id, count(*)::int as n from sessions where kind = 'main' and status = 'answered' group by prompt_id) c
     where p.id = c.prompt_id and p.id = any($1::int[])`,
      [arena.promptIds],
    );
    await db.query('commit');
  } catch (err) {
    await db.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    db.release();
  }
  await pool.query('vacuum analyze sessions, arena_pairs, battles, public_votes, agents, prompts, users');
  arena.answers = answers;
  arena.votes = answers;
}
