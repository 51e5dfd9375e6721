/** The workflow client's steering of a delivery: a typed refusal, an accepted cancel, and a finished or missing delivery. */
import { ApplicationFailure, Client, WorkflowUpdateFailedError } from '@temporalio/client';
import { cancelSandbox, submitPullResult, type WorkflowDeps } from '../../services/workflow-client';
import {
  DELIVERY_REFUSED,
  deliveryWorkflowId,
  refusals,
  submitResult,
  type PullResult,
} from '../../workflows/contracts';
import { answer, hang, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

let t: TestApp;
let client: Client;
let deps: WorkflowDeps;
let agentServer: TestAgentServer;
let owner: Registered;
let agent: { id: number };

beforeAll(async () => {
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1' }, { pingTimeoutMs: 2000, pastTheGym: false });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  deps = { client, taskQueue: t.config.taskQueue, gymRetrySeconds: 1, callTimeoutMs: 5000, eagerStart: false };
  agentServer = await startAgentServer(answer(200, { response: 'the answer' }));
  owner = await register(t.app);
  await t.startWorker();
  agent = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'pusher', webhook_url: agentServer.url },
    })
  ).json();
  await client.workflow.getHandle(`gym-${agent.id}-1`).result();
});
afterAll(async () => {
  await agentServer.close();
  await t.close();
});

const result: PullResult = { response: 'late', error: null, agentLatencyMs: null, resultHash: 'x', receivedAt: 0 };

it('answers a refusal with its reason, a cancel with the outcome, and a finished or unknown delivery as closed', async () => {
  agentServer.behave(hang);
  const { id } = (
    await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox`,
      headers: owner.auth,
      payload: { prompt: 'wait', deadline_seconds: 60 },
    })
  ).json();
  const sessionId = Number(id.split('-')[1]);
  const handle = client.workflow.getHandle(deliveryWorkflowId(sessionId));

  // A push delivery refuses a pull result: the failure carries the refusal's type, not just its words.
  const raw = await handle.executeUpdate(submitResult, { args: [result] }).catch((err: unknown) => err);
  expect(raw).toBeInstanceOf(WorkflowUpdateFailedError);
  const cause = (raw as WorkflowUpdateFailedError).cause;
  expect(cause).toBeInstanceOf(ApplicationFailure);
  expect((cause as ApplicationFailure).type).toBe(DELIVERY_REFUSED);
  expect(await submitPullResult(deps, sessionId, result)).toEqual({ kind: 'refused', reason: refusals.notPullMode });

  expect(await cancelSandbox(deps, sessionId)).toEqual({ kind: 'done', outcome: { status: 'cancelled' } });
  await handle.result();
  expect(await cancelSandbox(deps, sessionId)).toEqual({ kind: 'closed' });
  expect(await submitPullResult(deps, sessionId, result)).toEqual({ kind: 'closed' });
  expect(await cancelSandbox(deps, 2_000_000_000)).toEqual({ kind: 'closed' });
});
