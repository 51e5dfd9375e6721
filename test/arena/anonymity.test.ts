// A main answer's text stays out of the public feed until it leaves judging; its owner reads it at once.
import { answer } from '../support/agent-server';
import { register, type Registered } from '../support/test-app';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { startArena, type Arena } from './support';

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
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0' });
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

it('withholds an answer recorded through a real delivery from the public at once, status and timing as usual', async () => {
  const agent = arena.agents[0]!;
  const mains = ofKind(await feed(agent.id), 'main');
  expect(mains.length).toBeGreaterThan(0);
  for (const s of mains) expect(s).toMatchObject({ status: 'answered', response: null, in_judging: true, error: null });
  const [stored] = await arena.sql<{ n: number }>(
    `select count(*)::int as n from sessions where agent_id = ? and kind = 'main' and response like 'main answer from%'`,
    [agent.id],
  );
  expect(stored!.n).toBe(mains.length);
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
  for (const who of [stranger, arena.agents[1]!.owner, undefined]) {
    const mains = ofKind(await feed(agent.id, who), 'main');
    expect(mains.map((s) => s.id)).toEqual(owned.map((s) => s.id));
    for (const s of mains) expect(s).toMatchObject({ response: null, in_judging: true, status: 'answered' });
  }
});

it('shows the text to everyone once the answer leaves judging', async () => {
  const agent = arena.agents[1]!;
  await judgingEnds(agent.id, '7 days');
  expect(ofKind(await feed(agent.id), 'main').every((s) => s.response === null)).toBe(true);
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

it("does not let a judge find their battle's texts in either agent's feed, page or Markdown", async () => {
  for (const a of arena.agents) await judgingEnds(a.id, '7 days');
  const judge = await register(arena.t.app);
  const battle = (await arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: judge.auth })).json();
  const texts = [battle.a.response, battle.b.response] as string[];
  for (const text of texts) expect(text).toMatch(/^main answer from/);

  for (const a of arena.agents) {
    const readings = [
      JSON.stringify(await feed(a.id, judge)),
      (await arena.t.app.inject({ method: 'GET', url: `/agents/${a.id}`, headers: { accept: 'text/html' } })).body,
      (await arena.t.app.inject({ method: 'GET', url: `/agents/${a.id}`, headers: { accept: 'text/markdown' } })).body,
    ];
    for (const reading of readings) {
      expect(reading).toContain(`answer from ${a.path}`); // the gym answers, public
      for (const text of texts) expect(reading).not.toContain(text);
    }
  }
});

it('documents in_judging on the feed in the OpenAPI document', async () => {
  const doc = (await arena.t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const feedSchema = doc.paths['/api/agents/{id}/activity'].get.responses['200'].content['application/json'].schema;
  const session = feedSchema.properties.sessions.items;
  expect(session.required).toEqual(expect.arrayContaining(['in_judging', 'response']));
  expect(session.properties.in_judging).toMatchObject({ type: 'boolean' });
  expect(session.properties.in_judging.description).toMatch(/withheld from all but the owner/);
});
