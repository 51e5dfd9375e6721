import { countsAsPushFailure, inactiveReason } from '../../activities/record-outcome';
import { startOpsArena, type OpsArena } from './support';

let arena: OpsArena;

beforeAll(async () => {
  // Three failures in a row spanning at least a minute make a push agent inactive.
  arena = await startOpsArena({ ARENA_PUSH_FAILURE_LIMIT: '3', ARENA_PUSH_FAILURE_SPAN: '60' });
}, 60_000);
afterAll(() => arena.close());

const agentState = async (id: number) =>
  (await arena.t.app.inject({ method: 'GET', url: `/api/agents/${id}`, headers: arena.owner.auth })).json();
/** A new push agent on the failing path, its gym done (the gym's good answers would end a run of failures). */
async function fragileAgent(name: string): Promise<{ id: number }> {
  const agent = await arena.createAgent({ name, webhook_url: arena.server.url.replace('/hook', '/flaky') });
  expect(await arena.client.workflow.getHandle(`gym-${agent.id}-1`).result()).toBe('complete');
  return agent;
}
/** The run of failures began two minutes ago, as if the failures had been spread out. */
const backdateRun = (id: number) =>
  arena.sql(`update agents set failing_since = now() - interval '2 minutes' where id = ?`, [id]);
const failures = async (id: number) =>
  (await arena.sql<{ n: number }>(`select consecutive_failures as n from agents where id = ?`, [id]))[0]!.n;

async function failOnce(agentId: number): Promise<void> {
  const task = await arena.sandbox(agentId, 'fail');
  expect(await arena.settle(task.sessionId)).toEqual({ status: 'error' });
}

it('makes a push agent inactive after a run of failed deliveries, says why, and a successful retest brings it back', async () => {
  const agent = await fragileAgent('fragile');
  arena.failing.flaky = true;
  for (let i = 0; i < 3; i++) await failOnce(agent.id);
  // Three failures, but within seconds: a short outage is not enough.
  expect(await agentState(agent.id)).toMatchObject({ active: true, ping_error: null });
  expect(await failures(agent.id)).toBe(3);
  await backdateRun(agent.id);
  await failOnce(agent.id);
  const inactive = await agentState(agent.id);
  expect(inactive.active).toBe(false);
  expect(inactive.ping_error).toMatch(
    /^made inactive after 4 failed deliveries in a row over 2 minutes \(last: the webhook answered HTTP 500.*\); fix the webhook, then retest$/,
  );
  // Inactive: no more prompts for it.
  const refused = await arena.t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/sandbox`,
    headers: arena.owner.auth,
    payload: { prompt: 'x' },
  });
  expect(refused.statusCode).toBe(409);

  arena.failing.flaky = false;
  const retest = await arena.t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/retest`,
    headers: arena.owner.auth,
  });
  expect(retest.json()).toEqual({ id: agent.id, active: true, ping_error: null });
  expect(await failures(agent.id)).toBe(0);
  // A fresh run: one new failure does not make it inactive again, even with the old start date gone.
  arena.failing.flaky = true;
  await failOnce(agent.id);
  expect((await agentState(agent.id)).active).toBe(true);
  expect(await failures(agent.id)).toBe(1);
  arena.failing.flaky = false;
});

it('ends the run on a good answer, and never brings back a deactivated agent', async () => {
  const agent = await fragileAgent('recovering');
  arena.failing.flaky = true;
  await failOnce(agent.id);
  await failOnce(agent.id);
  arena.failing.flaky = false;
  const good = await arena.sandbox(agent.id, 'fine');
  expect(await arena.settle(good.sessionId)).toEqual({ status: 'answered' });
  expect(await failures(agent.id)).toBe(0);

  arena.failing.flaky = true;
  for (let i = 0; i < 2; i++) await failOnce(agent.id);
  await backdateRun(agent.id);
  await failOnce(agent.id);
  expect((await agentState(agent.id)).active).toBe(false);
  await arena.t.app.inject({ method: 'POST', url: `/api/agents/${agent.id}/deactivate`, headers: arena.owner.auth });
  arena.failing.flaky = false;
  const retest = await arena.t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/retest`,
    headers: arena.owner.auth,
  });
  expect(retest.statusCode).toBe(409);
  expect((await agentState(agent.id)).active).toBe(false);
});

it('leaves pull agents alone', async () => {
  const puller = await arena.createAgent({ name: 'puller', mode: 'pull' });
  for (let i = 0; i < 3; i++) {
    const task = await arena.sandbox(puller.id, 'expire', 1);
    expect(await arena.settle(task.sessionId)).toEqual({ status: 'timeout' });
  }
  expect((await agentState(puller.id)).active).toBe(true);
  expect(await failures(puller.id)).toBe(0);
});

describe('what counts', () => {
  it('counts the agent’s errors and missed deadlines, not cancellations or our own faults', () => {
    expect(countsAsPushFailure('error', { status: 'error', error: 'HTTP 500', latencyMs: 3 })).toBe(true);
    expect(countsAsPushFailure('error', { status: 'deadline' })).toBe(true);
    expect(countsAsPushFailure('timeout', { status: 'deadline' })).toBe(true);
    expect(countsAsPushFailure('cancelled', { status: 'cancelled' })).toBe(false);
    expect(countsAsPushFailure('answered', { status: 'answered', response: 'x', latencyMs: 1 })).toBe(false);
    expect(
      countsAsPushFailure('error', { status: 'error', error: 'interrupted', latencyMs: 0, notAgentsFault: true }),
    ).toBe(false);
  });

  it('explains the reason in minutes for long runs', () => {
    expect(inactiveReason(10, 725, 'connection refused')).toBe(
      'made inactive after 10 failed deliveries in a row over 12 minutes (last: connection refused); fix the webhook, then retest',
    );
  });
});
