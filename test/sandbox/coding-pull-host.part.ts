/**
 * With no ARENA_PUBLIC_URL, a pull agent's coding session names the arena as its runner reached it,
 * as its `run_command` does: not the arena's own default (localhost), which a runner on another
 * machine cannot reach.
 */
import { startCodingArena, type CodingArena } from './coding-support';

let arena: CodingArena;
beforeAll(async () => {
  arena = await startCodingArena({ ARENA_PUBLIC_URL: undefined as unknown as string, PORT: '3000' }, 'hosted');
});
afterAll(() => arena?.close());

it("gives the sandbox's URLs the host the runner polled, the one its run_command names", async () => {
  const { t, owner, agent } = arena;
  const host = '192.0.2.7:3000';
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: { ...owner.auth, host },
    payload: { name: 'second-puller', mode: 'pull' },
  });
  expect(created.json().run_command).toContain(`--base-url http://${host} `);

  const started = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/sandbox`,
    headers: owner.auth,
    payload: { task: 'python/leap-year' },
  });
  expect(started.statusCode).toBe(202);
  const sessionId = started.json().id as string;
  const work = await t.app.inject({
    method: 'GET',
    url: `/api/agents/${agent.id}/work/next?wait=20`,
    headers: { 'x-arena-secret': agent.webhook_secret, host },
  });
  expect(work.json()).toMatchObject({
    work_id: sessionId,
    sandbox: {
      api: `http://${host}/api/agents/${agent.id}/sandbox/${sessionId}`,
      mcp_url: `http://${host}/mcp`,
    },
  });
  // The URL works as given: a step through it reaches this arena.
  const { api, token } = work.json().sandbox as { api: string; token: string };
  const session = new URL(api).pathname;
  const headers = { authorization: `Bearer ${token}`, host };
  expect((await t.app.inject({ method: 'GET', url: `${session}/files?path=.`, headers })).statusCode).toBe(200);
  await t.app.inject({ method: 'POST', url: `${session}/submit`, headers });
});
