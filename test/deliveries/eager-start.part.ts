/**
 * Eager workflow start: where the API shares a process with a worker (the embedded stack), it starts
 * deliveries on that worker's connection and the server hands the first workflow task back with the
 * start. A separate API process cannot, and does not ask.
 */
import { Client } from '@temporalio/client';
import { startApi, type RunningApi } from '../../api/server';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { answer, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

let t: TestApp;
let api: RunningApi;
let agentServer: TestAgentServer;
let owner: Registered;
let agentId: number;

beforeAll(async () => {
  t = await startTestApp();
  agentServer = await startAgentServer(answer(200, { response: '42' }));
  const worker = await t.startWorker();
  // The embedded stack's wiring (cli/start.ts): the API on the worker's connection.
  api = await startApi({ ...t.config, host: '127.0.0.1', port: 0 }, worker.connection);
  owner = await register(t.app);
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name: 'eager', webhook_url: agentServer.url },
  });
  agentId = created.json().id;
}, 60_000);

afterAll(async () => {
  await api.close();
  await agentServer.close();
  await t.close();
});

/** Posts a sandbox prompt through `via` and returns whether the server started its delivery eagerly, and its outcome. */
async function deliver(via: (payload: object) => Promise<{ id: string }>) {
  const { id } = await via({ prompt: 'What is 6 x 7?', deadline_seconds: 30 });
  const client = new Client({ connection: t.temporal });
  const workflow = client.workflow.getHandle(deliveryWorkflowId(Number(id.split('-')[1])));
  const outcome = await workflow.result();
  const history = await workflow.fetchHistory();
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  return { eager: started?.eagerExecutionAccepted ?? false, outcome };
}

it('the API in the worker process starts a delivery eagerly, and the delivery is answered', async () => {
  const viaSharedProcess = async (payload: object) => {
    const res = await fetch(`${api.url}/api/agents/${agentId}/sandbox`, {
      method: 'POST',
      headers: { ...owner.auth, 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    expect(res.status).toBe(202);
    return (await res.json()) as { id: string };
  };
  expect(await deliver(viaSharedProcess)).toEqual({ eager: true, outcome: { status: 'answered' } });
});

it('an API on its own connection starts deliveries the usual way', async () => {
  const viaOwnConnection = async (payload: object) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agentId}/sandbox`,
      headers: owner.auth,
      payload,
    });
    expect(res.statusCode).toBe(202);
    return res.json<{ id: string }>();
  };
  expect(await deliver(viaOwnConnection)).toEqual({ eager: false, outcome: { status: 'answered' } });
});
