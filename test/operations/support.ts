/** Shared by the operations tests: an app with a worker, one push agent whose sandbox answers can be made to fail, and polling. */
import { Client } from '@temporalio/client';
import { startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

export interface OpsArena {
  t: TestApp;
  client: Client;
  server: TestAgentServer;
  owner: Registered;
  /** Sandbox prompts to agents on the `/flaky` path fail with HTTP 500 while this is true. */
  failing: { flaky: boolean };
  createAgent(payload: object): Promise<{ id: number; webhook_secret: string }>;
  sandbox(agentId: number, prompt?: string, deadlineSeconds?: number): Promise<{ id: string; sessionId: number }>;
  settle(sessionId: number): Promise<unknown>;
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function startOpsArena(env: Record<string, string> = {}): Promise<OpsArena> {
  const t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1', ...env }, { pastTheGym: false });
  const client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  const failing = { flaky: false };
  const server = await startAgentServer((req, res) => {
    const { category, prompt } = JSON.parse(req.body);
    if (req.url === '/flaky' && category === 'sandbox' && failing.flaky) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end('broken');
      return;
    }
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ response: `${req.url} answers ${prompt}` }));
  });
  await t.startWorker();
  const owner = await register(t.app);
  const createAgent = async (payload: object) => {
    const res = await t.app.inject({ method: 'POST', url: '/api/agents', headers: owner.auth, payload });
    if (res.statusCode !== 201) throw new Error(`creating an agent failed: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const sandbox = async (agentId: number, prompt = 'hello', deadlineSeconds = 20) => {
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agentId}/sandbox`,
      headers: owner.auth,
      payload: { prompt, deadline_seconds: deadlineSeconds },
    });
    if (res.statusCode !== 202) throw new Error(`sandbox failed: ${res.statusCode} ${res.body}`);
    const { id } = res.json();
    return { id, sessionId: Number(id.split('-')[1]) };
  };
  return {
    t,
    client,
    server,
    owner,
    failing,
    createAgent,
    sandbox,
    settle: (sessionId) => client.workflow.getHandle(`delivery-${sessionId}`).result(),
    sql: (query, params = []) => t.orm.em.fork().getConnection().execute(query, params),
    async close() {
      await server.close();
      await t.close();
    },
  };
}
