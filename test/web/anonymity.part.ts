// An agent's page, in HTML and Markdown, leaves out its arena answers in judging (prompt and answer) for everyone but its signed-in owner.
import { Client } from '@temporalio/client';
import { answer } from '../support/agent-server';
import { startArena, type Arena } from '../arena/support';
import { findableText } from './findable-text';
import { WebClient } from './support';

let arena: Arena;
let owner: WebClient;
let agentId: number;
let mainTexts: string[];
let mainPrompts: string[];

const OWNER_NOTE = 'In judging: only you see this answer until judging ends.';

beforeAll(async () => {
  // The gym's answers are under test here: the agents run the real gym.
  arena = await startArena(1, { ARENA_MIN_GAP_SECONDS: '0' }, { pastTheGym: false });
  // The owner signs up on the website and registers an agent with an API key issued there.
  owner = new WebClient(arena.t.app);
  await owner.signUp(`owner${Date.now() % 100000}`);
  const issued = await owner.submit('/account/api-key', {});
  const apiKey = /id="secret">([^<]+)</.exec(issued.body)?.[1];
  if (!apiKey) throw new Error(`no API key on the page: ${issued.statusCode}`);
  const created = await arena.t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: { authorization: `Bearer ${apiKey}` },
    payload: { name: 'web-owned', webhook_url: arena.server.url.replace('/hook', '/web-owned') },
  });
  agentId = created.json().id;
  await new Client({ connection: arena.t.temporal, namespace: arena.t.config.temporalNamespace }).workflow
    .getHandle(`gym-${agentId}-1`)
    .result();
  arena.server.behave((req, res) => {
    const { prompt_id } = JSON.parse(req.body) as { prompt_id: number };
    answer(200, { response: `main answer from ${req.url} to prompt ${prompt_id}` })(req, res);
  });
  await arena.dispatch();
  const rows = await arena.sql<{ response: string; prompt: string }>(
    `select s.response, p.text as prompt from sessions s join prompts p on p.id = s.prompt_id
     where s.agent_id = ? and s.kind = 'main' and s.status = 'answered'`,
    [agentId],
  );
  mainTexts = rows.map((r) => r.response);
  mainPrompts = rows.map((r) => findableText(r.prompt));
  expect(mainTexts.length).toBeGreaterThan(0);
}, 120_000);
afterAll(() => arena.close());

/** Test fixture: the agent's main answers end judging at `until` (SQL interval from now). */
const judgingEnds = (until: string) =>
  arena.sql(`update sessions set judging_until = now() + ?::interval where agent_id = ? and kind = 'main'`, [
    until,
    agentId,
  ]);

const page = (accept: 'text/html' | 'text/markdown', as?: WebClient) => {
  const request = { method: 'GET' as const, url: `/agents/${agentId}`, headers: { accept } };
  return as ? as.request(request) : arena.t.app.inject(request);
};

it('shows the public the page without the arena answers in judging, prompts included, and the signed-in owner with them', async () => {
  await judgingEnds('7 days');
  const stranger = new WebClient(arena.t.app);
  await stranger.signUp(`stranger${Date.now() % 100000}`);
  for (const as of [undefined, stranger]) {
    const html = await page('text/html', as);
    expect(html.statusCode).toBe(200);
    expect(html.body).toContain('answer from /web-owned'); // gym answers stay public
    expect(html.body).not.toContain(OWNER_NOTE);
    for (const text of [...mainTexts, ...mainPrompts]) expect(html.body).not.toContain(text);
  }

  const mine = await page('text/html', owner);
  expect(mine.statusCode).toBe(200);
  expect(mine.headers['cache-control']).toBe('private');
  expect(mine.body).toContain(OWNER_NOTE);
  for (const text of mainTexts) expect(mine.body).toContain(text);
});

it('withholds them from the Markdown variant too, except for the owner', async () => {
  await judgingEnds('7 days');
  const md = await page('text/markdown');
  expect(md.headers['content-type']).toBe('text/markdown; charset=utf-8');
  expect(md.body).toContain('**Response:**\n\n```text\nanswer from /web-owned\n```'); // a gym answer
  expect(md.body).not.toMatch(/main-\d+/);
  for (const text of [...mainTexts, ...mainPrompts]) expect(md.body).not.toContain(text);

  const mine = await page('text/markdown', owner);
  expect(mine.body).toContain(`_${OWNER_NOTE}_`);
  for (const text of mainTexts) expect(mine.body).toContain(`**Response:**\n\n\`\`\`text\n${text}\n\`\`\``);
});

it('shows the answers to everyone once they leave judging', async () => {
  await judgingEnds('-1 second');
  for (const accept of ['text/html', 'text/markdown'] as const) {
    const res = await page(accept);
    for (const text of [...mainTexts, ...mainPrompts]) expect(res.body).toContain(text);
  }
});
