import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { WebhookClient } from '../../infra/webhook/client';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { SandboxRuntime } from '../../infra/sandbox/runtime';

// Pairs made by the real recording activity against the real database; judged through the real API.
let t: TestApp;
let webhooks: WebhookClient;
let activities: ReturnType<typeof createActivities>;
const agents: Record<string, { id: number; owner: Registered }> = {};
let prompts = 0;

beforeAll(async () => {
  t = await startTestApp({ ARENA_PAIRS_PER_ANSWER: '2', ARENA_VOTES_PER_PAIR: '2' });
  await t.startWorker();
  webhooks = new WebhookClient({ allowPrivate: true });
  activities = createActivities({
    orm: t.orm,
    webhooks,
    encryptionKey: t.config.encryptionKey,
    arena: t.config.arena,
    publicUrl: t.config.publicUrl,
    sandbox: new SandboxRuntime(t.config.sandbox, 'no-coding-sessions-here'),
  });
  const ownerA = await register(t.app);
  agents.a1 = { id: await newAgent(ownerA, 'a1'), owner: ownerA };
  agents.a2 = { id: await newAgent(ownerA, 'a2'), owner: ownerA };
  for (const name of ['q', 'r', 's', 'u', 'x', 'w']) {
    const owner = await register(t.app);
    agents[name] = { id: await newAgent(owner, name), owner };
  }
}, 60_000);
afterAll(async () => {
  await webhooks.close();
  await t.close();
});

const sql = <T = Record<string, unknown>>(q: string, p: unknown[] = []) => t.orm.em.getConnection().execute<T[]>(q, p);

async function newAgent(owner: Registered, name: string): Promise<number> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name, mode: 'pull' },
  });
  return res.json().id;
}

async function newPrompt(source = 'pool'): Promise<number> {
  const [row] = await sql<{ id: number }>(
    `insert into prompts (source, category, text, created_at) values (?, 'c', ?, now()) returning id`,
    [source, `pairs test prompt ${++prompts}`],
  );
  return row!.id;
}

/** A delivery of the prompt to the agent, recorded through the activity as the workflow records it. */
async function record(
  name: string,
  promptId: number,
  { kind = 'main', answered = true }: { kind?: 'main' | 'gym' | 'sandbox'; answered?: boolean } = {},
): Promise<number> {
  const [row] = await sql<{ id: number }>(
    `insert into sessions (agent_id, kind, prompt_id, mode, category, deadline_seconds, status, created_at)
     values (?, ?, ?, 'pull', 'c', 300, 'pending', now()) returning id`,
    [agents[name]!.id, kind, promptId],
  );
  const settlement = answered
    ? ({ status: 'answered', response: `${name} answers`, latencyMs: 5 } as const)
    : ({ status: 'error', error: 'agent failed', latencyMs: 5 } as const);
  await new MockActivityEnvironment({}, { logger: new DefaultLogger('WARN') }).run(() =>
    activities.recordOutcome({ sessionId: row!.id, kind, deadlineSeconds: 300, settlement }),
  );
  return row!.id;
}

/** The prompt's pairs as `<agent>-<agent>` names, the lower session first. */
async function pairsOf(promptId: number): Promise<string[]> {
  const names = Object.fromEntries(Object.entries(agents).map(([name, a]) => [a.id, name]));
  const rows = await sql<{ low: number; high: number }>(
    `select agent_low_id as low, agent_high_id as high from arena_pairs where prompt_id = ? order by id`,
    [promptId],
  );
  return rows.map((r) => `${names[r.low]}-${names[r.high]}`);
}

async function inJudging(sessionId: number): Promise<boolean> {
  const [row] = await sql<{ judging: boolean }>(
    `select coalesce(judging_until > now(), false) as judging from sessions where id = ?`,
    [sessionId],
  );
  return row!.judging;
}

// Each judge from the address it registered from: one address takes one slot of a pair.
const next = (who: Registered) =>
  t.app.inject({ method: 'GET', url: '/api/judge/next', headers: who.auth, remoteAddress: who.ip });
const closeEveryPair = () => sql(`update arena_pairs set open = false`);

describe('candidate pairs', () => {
  it('pairs a new pool answer with at most ARENA_PAIRS_PER_ANSWER earlier answers, of other owners only, and puts it in judging', async () => {
    const prompt = await newPrompt();
    const sessions = [];
    for (const name of ['a1', 'a2', 'q', 'r']) sessions.push(await record(name, prompt));
    // a2 has a1's owner: no pair. q pairs with both; r with two of the three: a1 and a2, which have fewer pairs than q.
    expect((await pairsOf(prompt)).sort()).toEqual(['a1-q', 'a1-r', 'a2-q', 'a2-r']);
    const [owners] = await sql<{ same: number; wrong: number }>(
      `select count(*) filter (where owner_low_id = owner_high_id)::int as same,
         count(*) filter (where al.owner_id <> p.owner_low_id or ah.owner_id <> p.owner_high_id or session_low_id >= session_high_id)::int as wrong
       from arena_pairs p join agents al on al.id = p.agent_low_id join agents ah on ah.id = p.agent_high_id`,
    );
    expect(owners).toEqual({ same: 0, wrong: 0 });
    const until = await sql<{ days: number }>(
      `select extract(epoch from judging_until - now()) / 86400 as days from sessions where id = any(?::int[])`,
      [`{${sessions.join(',')}}`],
    );
    for (const row of until) expect(Number(row.days)).toBeCloseTo(7, 2);
  });

  it('leaves failed answers, gym and sandbox answers out of judging, and makes no pairs for live prompts', async () => {
    const pool = await newPrompt();
    await record('q', pool);
    const failed = await record('r', pool, { answered: false });
    expect(await pairsOf(pool)).toEqual([]);
    expect(await inJudging(failed)).toBe(false);
    const sandbox = await record('s', await newPrompt('sandbox'), { kind: 'sandbox' });
    const gym = await record('s', await newPrompt('gym'), { kind: 'gym' });
    expect([await inJudging(sandbox), await inJudging(gym)]).toEqual([false, false]);
    // A live battle's two answers are its own battle: in judging, but never pool pairs.
    const live = await newPrompt('live');
    const sides = [await record('q', live), await record('r', live)];
    expect(await pairsOf(live)).toEqual([]);
    expect([await inJudging(sides[0]!), await inJudging(sides[1]!)]).toEqual([true, true]);
  });

  it('never pairs a new answer with one that has left judging, whose text is public', async () => {
    const prompt = await newPrompt();
    const released = await record('q', prompt);
    await sql(`update sessions set judging_until = null where id = ?`, [released]);
    await record('r', prompt);
    expect(await pairsOf(prompt)).toEqual([]);
    await record('s', prompt);
    expect(await pairsOf(prompt)).toEqual(['r-s']);
  });

  it('prefers the opponents with the fewest pairs when ratings are equal', async () => {
    const prompt = await newPrompt();
    for (const name of ['q', 'r', 's', 'u']) await record(name, prompt);
    // By now q and u have 2 pairs each, r and s 3: the newest (u, s) would not be the pick.
    expect(await pairsOf(prompt)).toEqual(['q-r', 'r-s', 'q-s', 's-u', 'r-u']);
    await record('x', prompt);
    expect((await pairsOf(prompt)).slice(5).sort()).toEqual(['q-x', 'u-x']);
  });

  it('prefers the opponents of close rating over those with fewer pairs', async () => {
    const prompt = await newPrompt();
    for (const name of ['q', 'r', 's', 'u']) await record(name, prompt);
    const far = [agents.q!.id, agents.u!.id];
    await sql(`update agents set elo = 1900 where id in (?, ?)`, far);
    try {
      await record('x', prompt);
    } finally {
      await sql(`update agents set elo = 1500 where id in (?, ?)`, far);
    }
    expect((await pairsOf(prompt)).slice(5).sort()).toEqual(['r-x', 's-x']);
  });

  it('hands a pair to at most ARENA_VOTES_PER_PAIR judges, concurrent ones included, never to the owner of a side', async () => {
    const judgeUntilEmpty = async (judge: Registered): Promise<number> => {
      let battles = 0;
      for (;;) {
        const res = await next(judge);
        if (res.statusCode === 204) return battles;
        expect(res.statusCode).toBe(200);
        battles++;
        await sql(
          `update battles set status = 'voted', winner = 'tie', voted_at = now() - interval '2 days' where id = ?`,
          [res.json().battle_id],
        );
      }
    };
    // q's owner first: nothing of q's comes to them.
    const q = agents.q!;
    expect(await judgeUntilEmpty(q.owner)).toBeGreaterThan(0);
    const [own] = await sql<{ n: number }>(
      `select count(*)::int as n from battles where judge_id = ? and ? in (agent_a_id, agent_b_id)`,
      [q.owner.userId, q.id],
    );
    expect(own!.n).toBe(0);

    const judges = await Promise.all(Array.from({ length: 6 }, () => register(t.app)));
    const concurrent = await Promise.all(judges.map(judgeUntilEmpty));
    expect(concurrent.reduce((a, b) => a + b, 0)).toBeGreaterThan(judges.length);
    // A judge may see "nothing left" while the last pairs are locked by others: a second pass takes what is left.
    for (const judge of judges) await judgeUntilEmpty(judge);

    const pairs = await sql<{ shown: number; open: boolean; battles: number }>(
      `select p.shown, p.open, (select count(*)::int from battles b where b.pair_low = p.session_low_id and b.pair_high = p.session_high_id) as battles
       from arena_pairs p`,
    );
    expect(pairs.length).toBeGreaterThan(10);
    for (const pair of pairs) {
      expect(pair.battles).toBe(pair.shown);
      expect(pair.shown).toBeLessThanOrEqual(2);
    }
    // Every pair was used up.
    expect(pairs.filter((p) => p.open)).toEqual([]);
  });

  it('takes an answer out of judging once each of its pairs has its votes', async () => {
    await closeEveryPair();
    const prompt = await newPrompt();
    const [q, r, s] = [await record('q', prompt), await record('r', prompt), await record('s', prompt)];
    expect(await pairsOf(prompt)).toEqual(['q-r', 'r-s', 'q-s']);
    const judging = async () => [await inJudging(q), await inJudging(r), await inJudging(s)];
    const judgeOnce = async () => {
      const judge = await register(t.app);
      const battle = (await next(judge)).json();
      const vote = await t.app.inject({
        method: 'POST',
        url: `/api/judge/${battle.battle_id}/vote`,
        headers: judge.auth,
        remoteAddress: judge.ip,
        payload: { winner: 'a' },
      });
      expect(vote.statusCode).toBe(200);
    };
    // The pair due first, then by id: the first hand-out starts q's and r's judging window, which
    // makes every pair of the prompt due at its end, so each pair fills before the next is begun.
    await judgeOnce(); // q-r
    await judgeOnce(); // q-r has both votes; q and r still have a pair with none.
    expect(await judging()).toEqual([true, true, true]);
    await judgeOnce(); // r-s
    expect(await judging()).toEqual([true, true, true]);
    await judgeOnce(); // r-s: every pair of r is voted.
    expect(await judging()).toEqual([true, false, true]);
    await judgeOnce(); // q-s
    await judgeOnce(); // q-s: all voted.
    expect(await judging()).toEqual([false, false, false]);
    const [votes] = await sql<{ votes: string }>(
      `select string_agg(votes::text, ',' order by id) as votes from arena_pairs where prompt_id = ?`,
      [prompt],
    );
    expect(votes!.votes).toBe('2,2,2');
    expect((await next(await register(t.app))).statusCode).toBe(204);
  });

  it('hands out no pair of a deactivated agent', async () => {
    await closeEveryPair();
    const prompt = await newPrompt();
    await record('w', prompt);
    await record('r', prompt);
    expect(await pairsOf(prompt)).toEqual(['w-r']);
    const w = agents.w!;
    const res = await t.app.inject({ method: 'POST', url: `/api/agents/${w.id}/deactivate`, headers: w.owner.auth });
    expect(res.statusCode).toBe(200);
    expect(await pairsOf(prompt)).toEqual([]);
    expect((await next(await register(t.app))).statusCode).toBe(204);
    // Nor is it paired again.
    await record('s', prompt);
    expect(await pairsOf(prompt)).toEqual(['r-s']);
  });
});
