import { BACKFILL_JUDGING_PAIRS } from '../../infra/db/migrations/Migration20261123130000';
import { FILL_PAIR_DUE_TIMES } from '../../infra/db/migrations/Migration20261127120000';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

// The migration's backfill, run on answers and battles seeded as they were before pairs existed.
let t: TestApp;
const sql = <T = Record<string, unknown>>(q: string, p: unknown[] = []) => t.orm.em.getConnection().execute<T[]>(q, p);

beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t.close());

async function newAgent(owner: Registered, name: string): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name, mode: 'pull' },
  });
  return res.json().id;
}

async function newPrompt(source: string): Promise<number> {
  const [row] = await sql<{ id: number }>(
    `insert into prompts (source, category, text, created_at) values (?, 'c', ?, now()) returning id`,
    [source, `backfill ${source} ${Math.random()}`],
  );
  return row!.id;
}

async function answer(agentId: number, promptId: number, kind = 'main', status = 'answered'): Promise<number> {
  const [row] = await sql<{ id: number }>(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, response, created_at)
     values (?, ?, ?, 'pull', 'c', 300, ?, ?, now() - interval '2 days') returning id`,
    [agentId, kind, promptId, status, status === 'answered' ? 'an answer' : null],
  );
  return row!.id;
}

async function battle(judge: Registered, x: number, y: number, status: 'open' | 'voted', live = false): Promise<void> {
  await sql(
    `insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high, live, status, winner, voted_at, created_at)
     select sx.prompt_id, ?, sx.id, sy.id, sx.agent_id, sy.agent_id, least(sx.id, sy.id), greatest(sx.id, sy.id), ?, ?,
       case when ? = 'voted' then 'a' end, case when ? = 'voted' then now() end, now()
     from sessions sx, sessions sy where sx.id = ? and sy.id = ?`,
    [judge.userId, live, status, status, status, x, y],
  );
}

const judgingUntil = async (id: number) =>
  (
    await sql<{ days: number | null }>(
      `select extract(epoch from judging_until - created_at) / 86400 as days from sessions where id = ?`,
      [id],
    )
  )[0]!.days;

it('pairs existing answers by the rule of new ones, counts their battles, and sets when each leaves judging', async () => {
  const owners = await Promise.all(Array.from({ length: 9 }, () => register(t.app)));
  const judges = await Promise.all(Array.from({ length: 3 }, () => register(t.app)));
  const [o1, ...others] = owners;
  const a1 = await newAgent(o1!, 'a1');
  const a2 = await newAgent(o1!, 'a2');
  const solo = await Promise.all(others.map((o, i) => newAgent(o, `agent-${i}`)));
  const withdrawn = solo[7]!;
  await sql(`update agents set deactivated = true where id = ?`, [withdrawn]);

  const pool = await newPrompt('pool');
  const order = [a1, a2, ...solo.slice(0, 6), withdrawn];
  const sessions: number[] = [];
  for (const agent of order) sessions.push(await answer(agent, pool));
  const failed = await answer(solo[6]!, pool, 'main', 'error');
  const [s1, s2, sb] = sessions as [number, number, number];
  // Battles judged before pairs existed: a1-b three times, a2-b once (and handed to a second judge).
  for (const judge of judges) await battle(judge, s1, sb, 'voted');
  await battle(judges[0]!, s2, sb, 'voted');
  await battle(judges[1]!, s2, sb, 'open');

  const both = await newPrompt('pool');
  const [m, n] = [await answer(solo[0]!, both), await answer(solo[1]!, both)];
  for (const judge of judges) await battle(judge, m, n, 'voted');
  const alone = await answer(solo[2]!, await newPrompt('pool'));

  const live = await newPrompt('live');
  const [lx, ly] = [await answer(solo[0]!, live), await answer(solo[1]!, live)];
  await battle(judges[0]!, lx, ly, 'voted', true);
  const unvotedLive = await newPrompt('live');
  const [ux, uy] = [await answer(solo[2]!, unvotedLive), await answer(solo[3]!, unvotedLive)];
  await battle(judges[0]!, ux, uy, 'open', true);
  const sandbox = await answer(solo[0]!, await newPrompt('sandbox'), 'sandbox');

  // The backfill ran before pairs had a due time, which a later migration then filled.
  await sql(`alter table arena_pairs alter column due_at drop not null`);
  for (const statement of BACKFILL_JUDGING_PAIRS) await sql(statement);
  await sql(FILL_PAIR_DUE_TIMES);
  await sql(`alter table arena_pairs alter column due_at set not null`);

  // Each answer pairs with at most 4 earlier ones of other owners; never one of its own owner's or a withdrawn agent's.
  const made = await sql<{ high: number; n: number }>(
    `select session_high_id as high, count(*)::int as n from arena_pairs where prompt_id = ? group by 1`,
    [pool],
  );
  const madeBy = (id: number) => made.find((r) => r.high === id)?.n ?? 0;
  expect(sessions.map(madeBy)).toEqual([0, 0, 2, 3, 4, 4, 4, 4, 0]);
  const [wrong] = await sql<{ n: number }>(
    `select count(*)::int as n from arena_pairs where owner_low_id = owner_high_id or ? in (agent_low_id, agent_high_id)
       or ? in (session_low_id, session_high_id) or prompt_id in (?, ?)`,
    [withdrawn, failed, live, unvotedLive],
  );
  expect(wrong!.n).toBe(0);

  const pair = async (x: number, y: number) =>
    (
      await sql<{ shown: number; votes: number; open: boolean }>(
        `select shown, votes, open from arena_pairs where session_low_id = ? and session_high_id = ?`,
        [x, y],
      )
    )[0];
  expect(await pair(s1, sb)).toEqual({ shown: 3, votes: 3, open: false });
  expect(await pair(s2, sb)).toEqual({ shown: 2, votes: 1, open: true });
  expect(await pair(m, n)).toEqual({ shown: 3, votes: 3, open: false });

  // Out of judging: every pair voted, or the live battle voted. Else 7 days from the answer; never for others.
  expect([await judgingUntil(m), await judgingUntil(n), await judgingUntil(lx), await judgingUntil(ly)]).toEqual([
    null,
    null,
    null,
    null,
  ]);
  for (const id of [s1, sb, alone, ux, uy]) expect(Number(await judgingUntil(id))).toBeCloseTo(7, 5);
  expect([await judgingUntil(failed), await judgingUntil(sandbox)]).toEqual([null, null]);

  // Each pair is due when the first of its answers leaves judging; a pair of answers already out, when it was made.
  const [due] = await sql<{ wrong: number; pairs: number }>(
    `select count(*) filter (where p.due_at is distinct from coalesce(least(sl.judging_until, sh.judging_until), p.created_at))::int as wrong,
       count(*)::int as pairs
     from arena_pairs p join sessions sl on sl.id = p.session_low_id join sessions sh on sh.id = p.session_high_id`,
  );
  expect(due).toEqual({ wrong: 0, pairs: expect.any(Number) });
  expect(due!.pairs).toBeGreaterThan(10);
});
