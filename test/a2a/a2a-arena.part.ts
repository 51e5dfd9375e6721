/**
 * A2A agents in the paths push and pull agents take: the main dispatch sends them pool prompts
 * (kept out of the public feed while judged), and an operator's redelivery sends a failed delivery
 * again under its original's id. Real A2A agents on the SDK's server, PostgreSQL and Temporal.
 */
import { Client } from '@temporalio/client';
import { dispatchArena } from '../../workflows';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { startA2aAgent, type A2aAgent } from '../support/a2a-agents';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

let t: TestApp;
let client: Client;
let admin: Registered;
const peers: A2aAgent[] = [];
const agents: Array<{ id: number; owner: Registered; peer: A2aAgent }> = [];

beforeAll(async () => {
  t = await startTestApp({ ARENA_ADMIN_USERNAMES: 'a2a-ops' }, { pingTimeoutMs: 5000, pastTheGym: false });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  await t.startWorker();
  admin = await register(t.app);
  await t.orm.em.getConnection().execute(`update users set username = 'a2a-ops' where id = ?`, [admin.userId]);
  // Two agents of two owners: the arena pairs answers of different owners.
  for (let i = 0; i < 2; i++) {
    const owner = await register(t.app);
    const peer = await startA2aAgent({ behaviour: { reply: 'message' }, answer: (prompt) => `answer ${i}: ${prompt}` });
    peers.push(peer);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: `a2a-${i}`, mode: 'a2a', agent_card_url: peer.cardUrl },
    });
    const { id } = res.json();
    await client.workflow.getHandle(`gym-${id}-1`).result();
    agents.push({ id, owner, peer });
  }
}, 90_000);
afterAll(async () => {
  await Promise.all(peers.map((p) => p.close()));
  await t.close();
});

const sql = <T>(query: string, params: unknown[] = []) => t.orm.em.getConnection().execute<T[]>(query, params);

it('the main dispatch sends each A2A agent a pool prompt as a message, judged before it is public', async () => {
  const handle = await client.workflow.start(dispatchArena, {
    taskQueue: t.config.taskQueue,
    workflowId: `a2a-dispatch-${Date.now()}`,
  });
  expect(await handle.result()).toBe(2);
  const main = await sql<{ id: number; agent_id: number }>(`select id, agent_id from sessions where kind = 'main'`);
  expect(new Set(main.map((s) => s.agent_id))).toEqual(new Set(agents.map((a) => a.id)));
  for (const session of main) {
    expect(await client.workflow.getHandle(deliveryWorkflowId(session.id)).result()).toEqual({ status: 'answered' });
    const agent = agents.find((a) => a.id === session.agent_id)!;
    const [call] = agent.peer.calls.filter((c) => c.headers['x-arena-delivery'] === `main-${session.id}`);
    expect(call?.rpcMethod).toBe('SendMessage');
    // In judging: the owner reads it, the public feed leaves it out.
    const owners = (
      await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity`, headers: agent.owner.auth })
    ).json();
    expect(owners.sessions.find((s: { id: string }) => s.id === `main-${session.id}`)).toMatchObject({
      status: 'answered',
      in_judging: true,
    });
    const anyone = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity` })).json();
    expect(anyone.sessions.map((s: { id: string }) => s.id)).not.toContain(`main-${session.id}`);
  }
});

it("an operator's redelivery sends a failed delivery again, under its original's id", async () => {
  const [agent] = agents;
  // The agent's interface is gone: the delivery fails as the agent's, with nothing to retry.
  await sql(
    `update agents set a2a_card = jsonb_set(a2a_card, '{supportedInterfaces,0,url}', '"http://127.0.0.1:9/gone"') where id = ?`,
    [agent!.id],
  );
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent!.id}/sandbox`,
    headers: agent!.owner.auth,
    payload: { prompt: 'again, please', deadline_seconds: 5 },
  });
  const failed = res.json<{ id: string }>().id;
  const first = await client.workflow.getHandle(deliveryWorkflowId(Number(failed.split('-')[1]))).result();
  expect(first.status).not.toBe('answered');

  await sql(
    `update agents set a2a_card = jsonb_set(a2a_card, '{supportedInterfaces,0,url}', to_jsonb(?::text)) where id = ?`,
    [`${agent!.peer.baseUrl}/a2a/jsonrpc`, agent!.id],
  );
  const redelivered = await t.app.inject({
    method: 'POST',
    url: `/api/admin/deliveries/${failed}/redeliver`,
    headers: admin.auth,
  });
  expect(redelivered.statusCode).toBe(202);
  const { workflow_id: workflowId, session_id: again } = redelivered.json();
  expect(await client.workflow.getHandle(workflowId).result()).toEqual({ status: 'answered' });
  const [call] = agent!.peer.calls.filter((c) => c.headers['x-arena-delivery'] === failed);
  expect(call?.params).toMatchObject({ message: { messageId: failed, parts: [{ text: 'again, please' }] } });
  expect(again).not.toBe(failed);
});
