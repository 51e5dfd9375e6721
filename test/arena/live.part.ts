import { answer } from '../support/agent-server';
import { register, trustJudges, type Registered } from '../support/test-app';
import { WebClient } from '../web/support';
import { startArena, type Arena } from './support';
import { until } from '../support/wait';

let arena: Arena;
let person: Registered;
// Starting agents and their gyms on a busy two-core machine can take a while.
beforeAll(async () => {
  arena = await startArena(2);
  person = await register(arena.t.app);
}, 120_000);
afterAll(() => arena.close());
afterEach(async () => {
  arena.server.behave((req, res) => answer(200, { response: `answer from ${req.url}` })(req, res));
  // A battle still running keeps its agents from the next one: each test starts from a quiet arena.
  await until(
    async () =>
      (await arena.sql<{ n: number }>(`select count(*)::int as n from battles where status = 'running'`))[0]!.n === 0,
    'every live battle to end',
  );
});

const start = (payload: object, who: Registered = person) =>
  arena.t.app.inject({ method: 'POST', url: '/api/battles', headers: who.auth, payload });
const show = (id: number, who: Registered = person) =>
  arena.t.app.inject({ method: 'GET', url: `/api/battles/${id}`, headers: who.auth });
const finished = (id: number) => arena.client.workflow.getHandle(`battle-${id}`).result();
/** The battle's prompt: fixtures look it up; the judge's battle carries no prompt id. */
const promptOf = async (battleId: number) =>
  (await arena.sql<{ prompt_id: number }>(`select prompt_id from battles where id = ?`, [battleId]))[0]!.prompt_id;

describe('live battles', () => {
  it('sends your prompt to two agents of different owners at once; you see both answers, then vote', async () => {
    const res = await start({
      prompt: 'Explain recursion in one sentence.',
      category: 'writing',
      deadline_seconds: 30,
    });
    expect(res.statusCode).toBe(202);
    const battle = res.json();
    expect(battle).toMatchObject({
      live: true,
      status: 'running',
      prompt: { text: 'Explain recursion in one sentence.', category: 'writing' },
    });
    expect(await finished(battle.battle_id)).toBe('open');
    const shown = (await show(battle.battle_id)).json();
    expect(shown).toMatchObject({ status: 'open', a: { status: 'answered' }, b: { status: 'answered' } });
    expect([shown.a.response, shown.b.response].sort()).toEqual(['answer from /agent-0', 'answer from /agent-1']);
    // Both answers are in judging until the vote, and make no pool pairs: the battle is their only one.
    const judging = async () =>
      (
        await arena.sql<{ judging: boolean }>(
          `select coalesce(judging_until > now(), false) as judging from sessions s
           join battles b on s.id in (b.session_a_id, b.session_b_id) where b.id = ? order by s.id`,
          [battle.battle_id],
        )
      ).map((r) => r.judging);
    expect(await judging()).toEqual([true, true]);
    expect(battle.prompt).not.toHaveProperty('id');
    const [pairs] = await arena.sql<{ n: number }>(`select count(*)::int as n from arena_pairs where prompt_id = ?`, [
      await promptOf(battle.battle_id),
    ]);
    expect(pairs!.n).toBe(0);
    // It is the person's battle to judge: judge/next offers it first.
    expect(
      (await arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: person.auth })).json().battle_id,
    ).toBe(battle.battle_id);
    const vote = await arena.t.app.inject({
      method: 'POST',
      url: `/api/judge/${battle.battle_id}/vote`,
      headers: person.auth,
      payload: { winner: 'both_bad' },
    });
    expect(vote.statusCode).toBe(200);
    expect(vote.json().a.delta + vote.json().b.delta).toBe(0);
    expect(await judging()).toEqual([false, false]);
    const [prompt] = await arena.sql<{ both_bad_count: number }>(`select both_bad_count from prompts where id = ?`, [
      await promptOf(battle.battle_id),
    ]);
    expect(prompt!.both_bad_count).toBe(1);
    expect((await show(battle.battle_id, await register(arena.t.app))).statusCode).toBe(404);
  });

  it('never shows one answer alone: neither side, its status or its text, until both are in', async () => {
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    arena.server.behave((req, res) => {
      if (req.url === '/agent-1') void held.then(() => answer(200, { response: 'the slow answer' })(req, res));
      else answer(200, { response: 'the quick answer' })(req, res);
    });
    const oneAnswered = (battleId: number) => async () =>
      (
        await arena.sql<{ n: number }>(
          `select count(*)::int as n from sessions s join battles b on s.id in (b.session_a_id, b.session_b_id)
           where b.id = ? and s.status = 'answered'`,
          [battleId],
        )
      )[0]!.n === 1;
    // Through the API, and through the website's page and its Markdown (a person signed in there).
    const web = new WebClient(arena.t.app);
    await web.signUp(`watcher${Date.now() % 100000}`);
    const viaApi = (await start({ prompt: 'One side is slow.', deadline_seconds: 60 })).json();
    const viaSite = await web.submit('/battle', { prompt: 'One side is slow, on the site.', category: 'writing' });
    expect(viaSite.statusCode).toBe(303);
    const siteBattle = Number(/\/battle\/(\d+)$/.exec(String(viaSite.headers.location))?.[1]);
    await until(oneAnswered(viaApi.battle_id));
    await until(oneAnswered(siteBattle));

    expect((await show(viaApi.battle_id)).json()).toMatchObject({
      status: 'running',
      a: { status: 'pending', response: null, error: null },
      b: { status: 'pending', response: null, error: null },
    });
    for (const accept of ['text/html', 'text/markdown']) {
      const page = await web.request({ method: 'GET', url: `/battle/${siteBattle}`, headers: { accept } });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('One side is slow, on the site.');
      expect(page.body).not.toContain('the quick answer');
      expect(page.body).not.toMatch(/answered/);
    }
    release();
    for (const id of [viaApi.battle_id, siteBattle]) expect(await finished(id)).toBe('open');
    const shown = (await show(viaApi.battle_id)).json();
    expect([shown.a.response, shown.b.response].sort()).toEqual(['the quick answer', 'the slow answer']);
    const page = await web.request({
      method: 'GET',
      url: `/battle/${siteBattle}`,
      headers: { accept: 'text/markdown' },
    });
    expect(page.body).toContain('the quick answer');
    expect(page.body).toContain('the slow answer');
  });

  it('counts on no board and moves no Elo, so battles left unvoted buy nothing and a fourth starts', async () => {
    const busy = await register(arena.t.app);
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await start({ prompt: `Battle number ${i}.`, deadline_seconds: 30 }, busy);
      expect(res.statusCode).toBe(202);
      ids.push(res.json().battle_id);
    }
    for (const id of ids) expect(await finished(id)).toBe('open');
    // Even a trusted judge's live vote is the requester's own comparison.
    await trustJudges(arena.t, busy);
    const vote = await arena.t.app.inject({
      method: 'POST',
      url: `/api/judge/${ids[0]}/vote`,
      headers: busy.auth,
      payload: { winner: 'a' },
    });
    expect(vote.statusCode).toBe(200);
    expect([vote.json().a.delta, vote.json().b.delta]).toEqual([0, 0]);
    await arena.sql(`update sessions set judging_until = now() where judging_until > now()`);
    await arena.refresh();
    expect(await arena.sql(`select reason from uncounted_votes where battle_id = ?`, [ids[0]])).toEqual([
      { reason: 'live' },
    ]);
    const exported = (await arena.t.app.inject({ method: 'GET', url: '/api/votes' })).body
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line).battle_id as number);
    expect(exported).not.toContain(ids[0]);
  });

  it('never sends a live battle to an agent of an owner registered together with the person', async () => {
    // Registered from agent-1's owner's address the same day: only agent-0 is left, and one agent is no battle.
    const sock = await register(arena.t.app, arena.agents[1]!.owner.ip);
    const res = await start({ prompt: 'Is it ours?' }, sock);
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/two eligible agents of different owners/);
  });

  it('is void when one side fails, and cannot be voted', async () => {
    arena.server.behave((req, res) =>
      req.url === '/agent-1' ? answer(500, {})(req, res) : answer(200, { response: 'fine' })(req, res),
    );
    const battle = (await start({ prompt: 'One side will fail.' })).json();
    expect(await finished(battle.battle_id)).toBe('void');
    const shown = (await show(battle.battle_id)).json();
    expect(shown.status).toBe('void');
    expect([shown.a.status, shown.b.status].sort()).toEqual(['answered', 'error']);
    const vote = await arena.t.app.inject({
      method: 'POST',
      url: `/api/judge/${battle.battle_id}/vote`,
      headers: person.auth,
      payload: { winner: 'a' },
    });
    expect(vote.statusCode).toBe(409);
    expect(vote.json().detail).toMatch(/void/);
  });

  it('is a 409 when there are not two eligible agents of different owners besides your own', async () => {
    const res = await start({ prompt: 'mine' }, arena.agents[0]!.owner);
    expect(res.statusCode).toBe(409);
    expect(res.json().detail).toMatch(/two eligible agents of different owners/);
  });

  it('validates the prompt', async () => {
    for (const payload of [{}, { prompt: '' }, { prompt: 'x', deadline_seconds: 0 }]) {
      const res = await start(payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().detail).toMatch(/^/);
    }
  });
});
