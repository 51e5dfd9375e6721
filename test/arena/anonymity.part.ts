// An arena answer stays out of the public feed whole (prompt, category, timing, count) while it is
// pending or in judging; its owner reads it at once; a judge who reads everything public cannot tie
// a battle's prompt to its agents before the vote.
import { answer, hang } from '../support/agent-server';
import { register, type Registered } from '../support/test-app';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { dispatchArena } from '../../workflows';
import { findableText } from '../web/findable-text';
import { startArena, type Arena } from './support';
import { until } from '../support/wait';

let arena: Arena;

interface FeedSession {
  id: string;
  kind: string;
  status: string;
  response: string | null;
  in_judging: boolean;
  error: string | null;
  latency_ms: number;
}

beforeAll(async () => {
  // The gym's answers are under test here: the agents run the real gym.
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0' }, { pastTheGym: false });
  // From here on every answer names its prompt, so a text found anywhere points at one delivery.
  arena.server.behave((req, res) => {
    const { prompt_id } = JSON.parse(req.body) as { prompt_id: number };
    answer(200, { response: `main answer from ${req.url} to prompt ${prompt_id}` })(req, res);
  });
  await arena.dispatch();
  await arena.dispatch();
}, 120_000);
afterAll(() => arena.close());

const feed = async (agentId: number, who?: Registered): Promise<FeedSession[]> => {
  const res = await arena.t.app.inject({
    method: 'GET',
    url: `/api/agents/${agentId}/activity?limit=100`,
    headers: who?.auth ?? {},
  });
  expect(res.statusCode).toBe(200);
  return res.json().sessions;
};
const ofKind = (sessions: FeedSession[], kind: string) => sessions.filter((s) => s.kind === kind);

/** Test fixture: this agent's main answers end judging at `until` (SQL interval from now). */
const judgingEnds = (agentId: number, until: string) =>
  arena.sql(`update sessions set judging_until = now() + ?::interval where agent_id = ? and kind = 'main'`, [
    until,
    agentId,
  ]);

const publicTotal = async (agentId: number) =>
  (await arena.t.app.inject({ method: 'GET', url: `/api/agents/${agentId}/activity` })).json().total as number;

it('leaves an answer recorded through a real delivery out of the public feed at once, and out of its count', async () => {
  const agent = arena.agents[0]!;
  const [stored] = await arena.sql<{ all: number; main: number }>(
    `select count(*)::int as all, count(*) filter (where kind = 'main' and response like 'main answer from%')::int as main
     from sessions where agent_id = ?`,
    [agent.id],
  );
  expect(stored!.main).toBeGreaterThan(0);
  expect(ofKind(await feed(agent.id), 'main')).toEqual([]);
  expect(await publicTotal(agent.id)).toBe(stored!.all - stored!.main);
});

it('shows the owner every answer at once through their API key on the same endpoint; anyone else gets the public view', async () => {
  const agent = arena.agents[0]!;
  await judgingEnds(agent.id, '7 days');
  const owned = ofKind(await feed(agent.id, agent.owner), 'main');
  expect(owned.length).toBeGreaterThan(0);
  for (const s of owned) {
    expect(s.in_judging).toBe(true);
    expect(s.response).toMatch(new RegExp(`^main answer from ${agent.path} to prompt \\d+$`));
  }
  const ownerRes = await arena.t.app.inject({
    method: 'GET',
    url: `/api/agents/${agent.id}/activity`,
    headers: agent.owner.auth,
  });
  expect(ownerRes.headers['cache-control']).toBe('private');

  const stranger = await register(arena.t.app);
  for (const who of [stranger, arena.agents[1]!.owner, undefined])
    expect(ofKind(await feed(agent.id, who), 'main')).toEqual([]);
});

it('shows the text to everyone once the answer leaves judging', async () => {
  const agent = arena.agents[1]!;
  await judgingEnds(agent.id, '7 days');
  expect(ofKind(await feed(agent.id), 'main')).toEqual([]);
  await judgingEnds(agent.id, '-1 second');
  const mains = ofKind(await feed(agent.id), 'main');
  expect(mains.length).toBeGreaterThan(0);
  for (const s of mains) {
    expect(s.in_judging).toBe(false);
    expect(s.response).toMatch(new RegExp(`^main answer from ${agent.path} to prompt \\d+$`));
  }
});

it('shows gym and sandbox answers to the public at once', async () => {
  const agent = arena.agents[0]!;
  const res = await arena.t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/sandbox`,
    headers: agent.owner.auth,
    payload: { prompt: 'a sandbox prompt' },
  });
  expect(res.statusCode).toBe(202);
  expect(res.json().in_judging).toBe(false);
  const sessionId = Number(res.json().id.replace('sandbox-', ''));
  await arena.client.workflow.getHandle(deliveryWorkflowId(sessionId)).result();

  const sessions = await feed(agent.id);
  const sandbox = sessions.find((s) => s.id === res.json().id);
  expect(sandbox).toMatchObject({ status: 'answered', in_judging: false });
  expect(sandbox!.response).toMatch(/^main answer from .* to prompt/);
  const gym = ofKind(sessions, 'gym');
  expect(gym.length).toBeGreaterThan(0);
  for (const s of gym)
    expect(s).toMatchObject({ status: 'answered', response: `answer from ${agent.path}`, in_judging: false });
});

it("does not let a judge who reads everything public find their battle's prompt, texts or ids before the vote", async () => {
  for (const a of arena.agents) await judgingEnds(a.id, '7 days');
  const judge = await register(arena.t.app);
  const battle = (await arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: judge.auth })).json();
  const texts = [battle.a.response, battle.b.response] as string[];
  for (const text of texts) expect(text).toMatch(/^main answer from/);
  // The battle names no prompt id; what it does name (its own id) is nowhere public.
  expect(Object.keys(battle.prompt).sort()).toEqual(['category', 'text']);
  const secrets = [battle.prompt.text as string, ...texts];
  const get = async (url: string, accept = 'application/json') =>
    (await arena.t.app.inject({ method: 'GET', url, headers: { ...judge.auth, accept } })).body;

  // Every public reading a judge can make: each agent's feed (every page), page and Markdown, the
  // users and their pages, the leaderboard, each agent's ratings and coding record.
  const readings: string[] = [
    await get('/api/leaderboard'),
    await get('/', 'text/html'),
    await get('/users', 'text/html'),
  ];
  for (const a of arena.agents) {
    readings.push(
      JSON.stringify(await feed(a.id, judge)),
      await get(`/api/agents/${a.id}`),
      await get(`/api/agents/${a.id}/ratings`),
      await get(`/api/agents/${a.id}/coding`),
      await get(`/agents/${a.id}`, 'text/html'),
      await get(`/agents/${a.id}`, 'text/markdown'),
      await get(`/users/${a.owner.userId}`, 'text/html'),
    );
  }
  const everything = readings.join('\n');
  expect(everything).toContain('answer from /agent-'); // the gym answers, public
  for (const secret of secrets) expect(everything).not.toContain(secret.slice(0, 60));
  // The prompt as the HTML pages would show it, where Markdown and escaping change the raw text.
  expect(everything).not.toContain(findableText(battle.prompt.text));
  expect(everything).not.toMatch(new RegExp(`battle[^a-z]{0,5}${battle.battle_id}\\b`));
});

it('shows a main delivery that ended in an error, and an answer out of judging with no end time kept, to everyone and in the count', async () => {
  const agent = arena.agents[0]!;
  const before = await publicTotal(agent.id);
  arena.server.behave((_req, res) => {
    res.writeHead(500);
    res.end('broken');
  });
  const started = await arena.dispatch();
  const failed = (
    await arena.sql<{ id: number }>(
      `select id from sessions where agent_id = ? and kind = 'main' and status = 'error'`,
      [agent.id],
    )
  ).filter((r) => started.includes(r.id));
  expect(failed.length).toBeGreaterThan(0);
  const shown = ofKind(await feed(agent.id), 'main').filter((s) => s.status === 'error');
  expect(shown.map((s) => s.id).sort()).toEqual(failed.map((r) => `main-${r.id}`).sort());
  expect(await publicTotal(agent.id)).toBe(before + failed.length);

  // Answers whose judging ended before the end time was kept (it was once cleared on the vote).
  await arena.sql(
    `update sessions set judging_until = null where agent_id = ? and kind = 'main' and status = 'answered'`,
    [agent.id],
  );
  const answered = ofKind(await feed(agent.id, agent.owner), 'main').filter((s) => s.status === 'answered');
  expect(answered.length).toBeGreaterThan(0);
  const everyone = ofKind(await feed(agent.id), 'main').filter((s) => s.status === 'answered');
  expect(everyone.map((s) => s.id)).toEqual(answered.map((s) => s.id));
  for (const s of everyone) expect(s.in_judging).toBe(false);
});

it('leaves a main delivery out of the public feed while it is still pending', async () => {
  const agent = arena.agents[1]!;
  arena.server.behave(hang);
  const before = await publicTotal(agent.id);
  // A dispatch step, without waiting for its deliveries: they stay pending, the agent silent.
  await arena.client.workflow.execute(dispatchArena, {
    taskQueue: arena.t.config.taskQueue,
    workflowId: `dispatch-pending-${Date.now()}`,
  });
  await until(
    async () =>
      (
        await arena.sql<{ n: number }>(
          `select count(*)::int as n from sessions where agent_id = ? and kind = 'main' and status = 'pending'`,
          [agent.id],
        )
      )[0]!.n > 0,
  );
  expect(ofKind(await feed(agent.id), 'main').filter((s) => s.status === 'pending')).toEqual([]);
  expect(await publicTotal(agent.id)).toBe(before);
  expect(ofKind(await feed(agent.id, agent.owner), 'main').some((s) => s.status === 'pending')).toBe(true);
});

it('documents in_judging on the feed in the OpenAPI document', async () => {
  const doc = (await arena.t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const feedSchema = doc.paths['/api/agents/{id}/activity'].get.responses['200'].content['application/json'].schema;
  const session = feedSchema.properties.sessions.items;
  expect(session.required).toEqual(expect.arrayContaining(['in_judging', 'response']));
  expect(session.properties.in_judging).toMatchObject({ type: 'boolean' });
  expect(session.properties.in_judging.description).toMatch(/only its owner sees such an entry/);
});

it("says in the agents' skill what the public feed does with an answer in judging: leaves it out", async () => {
  const skill = (
    await arena.t.app.inject({ method: 'GET', url: '/.well-known/agent-skills/agent-arena/SKILL.md' })
  ).body.replace(/\s+/g, ' ');
  expect(skill).toContain('an arena prompt is left out of the public feed (and of its `total`)');
  expect(skill).not.toContain('"response": null');
});
