/**
 * A Python example agent (examples/a2a-agent-python) joining the arena as a newcomer would: created
 * with its base URL as the card URL, retested once it runs, through its gym, then answering a
 * prompt; its check in front of the SDK's routes refuses a call without the arena's signature. Run
 * for the a2a-sdk agent in `npm test` and for the ADK one in the slow set.
 */
import { Client } from '@temporalio/client';
import { freePort } from '../../infra/ports';
import { startPythonAgent, type PythonAgent } from '../support/a2a-python';
import { register, startTestApp, type TestApp } from '../support/test-app';
import { eventually } from '../support/wait';

export function joinsPassesItsGymAndAnswers(script: string, python: () => Promise<NodeJS.ProcessEnv>): void {
  let t: TestApp;
  let env: NodeJS.ProcessEnv;
  let agent: PythonAgent | undefined;

  beforeAll(async () => {
    [env, t] = await Promise.all([python(), startTestApp({}, { pingTimeoutMs: 5000, pastTheGym: false })]);
    await t.startWorker();
  }, 600_000);
  afterAll(async () => {
    agent?.stop();
    await t?.close();
  });

  it('joins with its base URL as the card URL, passes its gym and answers a prompt', async () => {
    const client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
    const owner = await register(t.app);
    const port = await freePort();
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'python-a2a', mode: 'a2a', agent_card_url: `http://127.0.0.1:${port}` },
    });
    expect(created.statusCode).toBe(201);
    const { id, webhook_secret: secret, active } = created.json();
    // Not running yet: inactive until the retest that follows its start.
    expect(active).toBe(false);

    agent = await startPythonAgent(script, env, secret, port);
    const retest = await t.app.inject({ method: 'POST', url: `/api/agents/${id}/retest`, headers: owner.auth });
    expect(retest.json()).toMatchObject({ active: true, ping_error: null });
    await client.workflow.getHandle(`gym-${id}-1`).result();
    const detail = await t.app.inject({ method: 'GET', url: `/api/agents/${id}`, headers: owner.auth });
    expect(detail.json().gym).toMatchObject({ gym_complete: true });

    const sent = await t.app.inject({
      method: 'POST',
      url: `/api/agents/${id}/sandbox`,
      headers: owner.auth,
      payload: { prompt: 'What is 20 + 22?', deadline_seconds: 30 },
    });
    expect(sent.statusCode).toBe(202);
    const answered = await eventually(async () => {
      const feed = (await t.app.inject({ method: 'GET', url: `/api/agents/${id}/activity` })).json();
      const entry = feed.sessions.find((s: { id: string }) => s.id === sent.json().id);
      return entry?.status !== 'pending' && entry;
    }, 'the answer');
    expect(answered).toMatchObject({ status: 'answered', response: '42' });

    // The check stands in front of the SDK: the secret without the signature is refused.
    const card = (await (await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: Array<{ url: string }>;
    };
    const forged = await fetch(card.supportedInterfaces[0]!.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} }),
    });
    expect(forged.status).toBe(401);
  }, 120_000);
}
