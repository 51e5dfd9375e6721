/**
 * Online agents: the main dispatch and live battles send prompts only to agents that can answer now
 * (a pull agent whose runner polls, a push agent whose last ping or delivery succeeded), and the
 * owner sees `online` and `last_seen`.
 */
import { deliveryWorkflowId } from '../../workflows/contracts';
import { register, type Registered } from '../support/test-app';
import { WebClient } from '../web/support';
import { startArena, type Arena } from './support';

let arena: Arena;
let puller: Registered;
let pull: { id: number; secret: string };
let person: Registered;

const next = (wait = 0) =>
  arena.t.app.inject({
    method: 'GET',
    url: `/api/agents/${pull.id}/work/next?wait=${wait}`,
    headers: { 'x-arena-secret': pull.secret },
  });
const post = (workId: string, payload: object) =>
  arena.t.app.inject({
    method: 'POST',
    url: `/api/agents/${pull.id}/work/${workId}/result`,
    headers: { 'x-arena-secret': pull.secret },
    payload,
  });
const detail = async (id = pull.id, who = puller) =>
  (await arena.t.app.inject({ method: 'GET', url: `/api/agents/${id}`, headers: who.auth })).json();
/** The runner leaves: its last poll was two minutes ago. */
const runnerGone = () =>
  arena.sql(`update agents set last_seen_at = now() - interval '2 minutes' where id = ?`, [pull.id]);
const mainSessionsOf = async (agentId: number) =>
  (
    await arena.sql<{ n: number }>(`select count(*)::int as n from sessions where agent_id = ? and kind = 'main'`, [
      agentId,
    ])
  )[0]!.n;
const startBattle = (prompt: string) =>
  arena.t.app.inject({
    method: 'POST',
    url: '/api/battles',
    headers: person.auth,
    payload: { prompt, deadline_seconds: 60 },
  });

beforeAll(async () => {
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0' });
  puller = await register(arena.t.app);
  person = await register(arena.t.app);
  const created = await arena.t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: puller.auth,
    payload: { name: 'pulled', mode: 'pull' },
  });
  pull = { id: created.json().id, secret: created.json().webhook_secret };
  // Its runner works through the gym, as `arena-runner` would.
  while (!(await detail()).gym_complete) {
    const res = await next(5);
    if (res.statusCode === 200) await post(res.json().work_id, { response: 'fine' });
  }
}, 180_000);
afterAll(() => arena.close());

describe('a pull agent', () => {
  it('is online while its runner polls, and the owner sees when it was last seen', async () => {
    const before = Date.now();
    expect((await next()).statusCode).toBe(204);
    const seen = await detail();
    expect(seen.online).toBe(true);
    expect(new Date(`${seen.last_seen}Z`).getTime()).toBeGreaterThanOrEqual(before - 1000);

    await runnerGone();
    expect(await detail()).toMatchObject({ online: false, last_seen: expect.any(String) });
    // Not its owner: 404, and nobody else learns whether it is online.
    const other = await arena.t.app.inject({ method: 'GET', url: `/api/agents/${pull.id}`, headers: person.auth });
    expect(other.statusCode).toBe(404);
  });

  it('a wrong secret is refused and does not make it online', async () => {
    await runnerGone();
    const forged = await arena.t.app.inject({
      method: 'GET',
      url: `/api/agents/${pull.id}/work/next?wait=0`,
      headers: { 'x-arena-secret': 'not-the-secret' },
    });
    expect(forged.statusCode).toBe(403);
    expect((await detail()).online).toBe(false);
  });

  it('gets no pool prompt while its runner is away, and gets one once it polls again', async () => {
    await runnerGone();
    const before = await mainSessionsOf(pull.id);
    await arena.dispatch();
    expect(await mainSessionsOf(pull.id)).toBe(before);

    expect((await next()).statusCode).toBe(204);
    const dispatched = arena.dispatch();
    let work;
    do work = await next(5);
    while (work.statusCode !== 200);
    expect(work.json().kind).toBe('main');
    expect((await post(work.json().work_id, { response: 'a pool answer' })).statusCode).toBe(200);
    await dispatched;
    expect(await mainSessionsOf(pull.id)).toBe(before + 1);
  });
});

describe('live battles', () => {
  it('never pick an agent that is not online; once its runner polls, it is picked', async () => {
    const [first, second] = arena.agents;
    // agent-1's last delivery failed: it is offline until a ping or an answer succeeds.
    await arena.sql(`update agents set consecutive_failures = 1, failing_since = now() where id = ?`, [second!.id]);
    expect(await detail(second!.id, second!.owner)).toMatchObject({ online: false, active: true });
    await runnerGone();

    const refused = await startBattle('Is anyone there?');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toBe(
      'a live battle needs two eligible agents of different owners (not yours) online now, and there are not enough: an agent is online while its runner polls or its webhook answers',
    );
    const [battles] = await arena.sql<{ n: number }>(`select count(*)::int as n from battles where judge_id = ?`, [
      person.userId,
    ]);
    expect(battles!.n).toBe(0);

    expect((await next()).statusCode).toBe(204);
    const started = await startBattle('Now there are two.');
    expect(started.statusCode).toBe(202);
    const [sides] = await arena.sql<{ a: number; b: number }>(
      `select agent_a_id as a, agent_b_id as b from battles where id = ?`,
      [started.json().battle_id],
    );
    expect([sides!.a, sides!.b].sort()).toEqual([first!.id, pull.id].sort());

    // While the pull side waits, the battle's page says which answer it waits for and until when.
    const web = new WebClient(arena.t.app);
    await web.signUp(`waiter${Date.now() % 100000}`);
    const viaSite = await web.submit('/battle', { prompt: 'Who is slow?', category: 'writing' });
    expect(viaSite.statusCode).toBe(303);
    const siteBattle = String(viaSite.headers.location);
    const [row] = await arena.sql<{ side: string; due: string }>(
      `select case when b.agent_a_id = ? then 'A' else 'B' end as side,
         to_char((s.created_at + make_interval(secs => s.deadline_seconds)) at time zone 'utc', 'HH24:MI:SS') as due
       from battles b join sessions s on s.id = case when b.agent_a_id = ? then b.session_a_id else b.session_b_id end
       where b.id = ?`,
      [pull.id, pull.id, Number(siteBattle.split('/').pop())],
    );
    const page = await web.request({ method: 'GET', url: siteBattle, headers: { accept: 'text/html' } });
    expect(page.body).toContain(`Waiting for answer ${row!.side}: due`);
    expect(page.body).toContain(`by ${row!.due} UTC.`);
    const markdown = await web.request({ method: 'GET', url: siteBattle, headers: { accept: 'text/markdown' } });
    expect(markdown.body).toMatch(/_waiting for this answer until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC_/);

    // The pull agent answers both, so the battles close.
    for (let answered = 0; answered < 2;) {
      const work = await next(5);
      if (work.statusCode !== 200) continue;
      await post(work.json().work_id, { response: 'slow but here' });
      answered++;
    }
    for (const id of [started.json().battle_id, Number(siteBattle.split('/').pop())])
      expect(await arena.client.workflow.getHandle(`battle-${id}`).result()).toBe('open');
  });
});

describe('a push agent', () => {
  it('whose last delivery failed is offline, still gets the pool prompt that ends its failure run, and is online again once it answers', async () => {
    const [, second] = arena.agents;
    await arena.sql(`update agents set consecutive_failures = 1, failing_since = now() where id = ?`, [second!.id]);
    await runnerGone();
    const before = await mainSessionsOf(second!.id);
    const ids = await arena.dispatch();
    expect(await mainSessionsOf(second!.id)).toBe(before + 1);
    for (const id of ids) await arena.client.workflow.getHandle(deliveryWorkflowId(id)).result();
    expect(await detail(second!.id, second!.owner)).toMatchObject({ online: true });
  });
});
