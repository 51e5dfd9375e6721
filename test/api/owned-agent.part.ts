/**
 * ownedAgent, which every owner's route and the sandbox use cases call: someone else's agent and a
 * missing one are both 404, and a second look in the same request (a website form, then its use
 * case) comes from the request's identity map instead of the database.
 */
import { ownedAgent } from '../../services/agents';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

let t: TestApp;
let owner: Registered;
let other: Registered;
let agentId: number;

beforeAll(async () => {
  t = await startTestApp();
  owner = await register(t.app);
  other = await register(t.app);
  agentId = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'mine', webhook_url: 'http://127.0.0.1:9/hook' },
    })
  ).json().id;
});
afterAll(() => t.close());

/** The statements on `agents` that `run` makes. */
async function agentStatements(run: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const knex = t.orm.em.getConnection().getKnex();
  const onQuery = (query: { sql: string }) => statements.push(query.sql);
  knex.on('query', onQuery);
  try {
    await run();
  } finally {
    knex.off('query', onQuery);
  }
  return statements.filter((sql) => /from "agents"/.test(sql));
}

it('reads an owned agent once per request, however often it is asked for', async () => {
  const em = t.orm.em.fork();
  const statements = await agentStatements(async () => {
    const first = await ownedAgent(em, agentId, owner.userId);
    const second = await ownedAgent(em, agentId, owner.userId);
    expect(second).toBe(first);
    expect(first.id).toBe(agentId);
  });
  expect(statements).toHaveLength(1);
});

it("answers someone else's agent and a missing one alike, as not found, even once it is loaded", async () => {
  const em = t.orm.em.fork();
  await ownedAgent(em, agentId, owner.userId);
  for (const [id, ownerId] of [
    [agentId, other.userId],
    [2_000_000_000, owner.userId],
  ] as const) {
    await expect(ownedAgent(em, id, ownerId)).rejects.toMatchObject({ kind: 'not_found', message: 'agent not found' });
  }
});
