/**
 * A coding session for an A2A agent: the prompt goes as an A2A message whose metadata carries the
 * sandbox; the agent (built on the SDK's own server) takes its task, works the session's steps and
 * submits, then completes the task with its summary. Real sandbox, PostgreSQL and Temporal.
 */
import { Client } from '@temporalio/client';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { startA2aAgent, type A2aAgent, type ReceivedCall } from '../support/a2a-agents';
import {
  feedEntryOf,
  fixCenturyRule,
  startCodingArena,
  startCodingSession,
  stepOf,
  type CodingArena,
  type SandboxObject,
} from './coding-support';

let arena: CodingArena;
let peer: A2aAgent;
let agentId: number;
const worked: string[] = [];

beforeAll(async () => {
  arena = await startCodingArena({}, 'a2a-coder-unused', { pingTimeoutMs: 5000 });
  peer = await startA2aAgent({
    behaviour: { reply: 'task', afterMs: 0 },
    answer: async (_prompt, metadata) => {
      const sandbox = metadata.sandbox as SandboxObject | undefined;
      if (!sandbox) return 'a gym answer';
      worked.push(sandbox.session_id);
      const step = stepOf(arena.t, sandbox);
      await fixCenturyRule(step);
      const submitted = await step('POST', 'submit');
      return `fixed the century rule (${submitted.json().status})`;
    },
  });
  const created = await arena.t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: arena.owner.auth,
    payload: { name: 'a2a-coder', mode: 'a2a', agent_card_url: peer.cardUrl },
  });
  expect(created.json()).toMatchObject({ active: true, ping_error: null });
  // Past the gym at once (startCodingArena's fixture).
  agentId = created.json().id;
}, 90_000);
afterAll(async () => {
  await peer?.close();
  await arena?.close();
});

it('sends the sandbox in the message, and the agent works and submits the session through it', async () => {
  const id = await startCodingSession(arena.t, arena.owner, agentId);
  const client = new Client({ connection: arena.t.temporal, namespace: arena.t.config.temporalNamespace });
  const outcome = await client.workflow.getHandle(deliveryWorkflowId(Number(id.split('-')[1]))).result();
  expect(outcome).toEqual({ status: 'passed' });

  const [sent] = peer.calls.filter(
    (c: ReceivedCall) => c.rpcMethod === 'SendMessage' && c.headers['x-arena-delivery'] === id,
  );
  const metadata = (sent!.params as { message: { metadata: Record<string, unknown> } }).message.metadata;
  expect(metadata).toMatchObject({
    category: expect.any(String),
    sandbox: { session_id: id, api: expect.stringContaining(`/sandbox/${id}`), token: expect.any(String) },
  });
  expect(worked).toEqual([id]);
  // The task's completion is the session's summary, as a push webhook's late answer is.
  const entry = await feedEntryOf(arena.t, agentId, id);
  expect(entry.status).toBe('passed');
  expect(entry.response).toMatch(/^fixed the century rule \(passed\)/);
  expect(entry.response).toMatch(/\*\*passed\*\*: 8 of 8 hidden tests passed/);
});
