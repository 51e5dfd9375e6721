import { answer, type AgentBehaviour } from '../support/agent-server';
import { register, type Registered } from '../support/test-app';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { startArena, type Arena } from './support';

let arena: Arena;
let person: Registered;
beforeAll(async () => {
  arena = await startArena(3);
  person = await register(arena.t.app);
}, 120_000);
afterAll(() => arena.close());

// Every agent answers with its own path, except for a prompt that says FAIL.
const usual: AgentBehaviour = (req, res) =>
  req.body.includes('FAIL') ? answer(500, {})(req, res) : answer(200, { response: `answer from ${req.url}` })(req, res);
beforeEach(() => arena.server.behave(usual));

/** The first request carrying `marker` gets `first`, every later one `later`; other prompts as usual. */
function firstOf(marker: string, first: AgentBehaviour, later: AgentBehaviour): AgentBehaviour {
  let seen = 0;
  return (req, res) => {
    if (!req.body.includes(marker)) return usual(req, res);
    return (seen++ === 0 ? first : later)(req, res);
  };
}
const fails = answer(500, {});
const answers: AgentBehaviour = (req, res) => answer(200, { response: `answer from ${req.url}` })(req, res);

/** A sandbox task to agent `i`; FAIL in the prompt makes it fail. Its outcome becomes the agent's latest delivery. */
async function sandbox(i: number, prompt: string): Promise<void> {
  const agent = arena.agents[i]!;
  const res = await arena.t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/sandbox`,
    headers: agent.owner.auth,
    payload: { prompt, deadline_seconds: 10 },
  });
  expect(res.statusCode).toBe(202);
  // The public id is `sandbox-<session id>`.
  const sessionId = Number(String(res.json().id).split('-').at(-1));
  await arena.client.workflow.getHandle(deliveryWorkflowId(sessionId)).result();
}
const recover = (i: number) => sandbox(i, 'hello again');
const indexOf = (agentId: number) => arena.agents.findIndex((a) => a.id === agentId);

const start = (prompt: string, who: Registered = person) =>
  arena.t.app.inject({
    method: 'POST',
    url: '/api/battles',
    headers: who.auth,
    payload: { prompt, deadline_seconds: 10 },
  });
const finished = (id: number) => arena.client.workflow.getHandle(`battle-${id}`).result();
/** The battle's prompt: fixtures look it up; the judge's battle carries no prompt id. */
const promptOf = async (battleId: number) =>
  (await arena.sql<{ prompt_id: number }>(`select prompt_id from battles where id = ?`, [battleId]))[0]!.prompt_id;
const sessionsOf = (promptId: number) =>
  arena.sql<{ id: number; agent_id: number; status: string }>(
    `select id, agent_id, status from sessions where prompt_id = ? order by id`,
    [promptId],
  );
const battleRow = async (id: number) =>
  (
    await arena.sql<{ session_a_id: number; session_b_id: number; agent_a_id: number; agent_b_id: number }>(
      `select session_a_id, session_b_id, agent_a_id, agent_b_id from battles where id = ?`,
      [id],
    )
  )[0]!;

describe('live battles pick agents that answered their latest delivery', () => {
  it('never picks an agent whose latest delivery failed; one that answers again is picked again', async () => {
    await sandbox(1, 'FAIL now');
    await sandbox(2, 'FAIL now');
    const refused = await start('Who is still answering?');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toMatch(/two eligible agents of different owners/);

    await recover(1);
    const res = await start('Who is answering now?');
    expect(res.statusCode).toBe(202);
    const battle = res.json();
    const row = await battleRow(battle.battle_id);
    expect([row.agent_a_id, row.agent_b_id].map(indexOf).sort()).toEqual([0, 1]);
    expect(await finished(battle.battle_id)).toBe('open');
    await recover(2);
  });
});

describe('a live battle replaces a side that fails, once', () => {
  it('completes with another eligible agent of a different owner in place of the failed side', async () => {
    arena.server.behave(firstOf('Replace the side that fails', fails, answers));
    const battle = (await start('Replace the side that fails.')).json();
    expect(await finished(battle.battle_id)).toBe('open');

    const shown = (
      await arena.t.app.inject({ method: 'GET', url: `/api/battles/${battle.battle_id}`, headers: person.auth })
    ).json();
    expect(shown).toMatchObject({ status: 'open', a: { status: 'answered' }, b: { status: 'answered' } });
    const sessions = await sessionsOf(await promptOf(battle.battle_id));
    expect(sessions.map((s) => s.status).sort()).toEqual(['answered', 'answered', 'error']);
    const failed = sessions.find((s) => s.status === 'error')!;
    const answered = sessions.filter((s) => s.status === 'answered');
    // The battle points at the replacement's session and agent; the failed delivery stays in its agent's feed.
    const row = await battleRow(battle.battle_id);
    expect([row.session_a_id, row.session_b_id].sort()).toEqual(answered.map((s) => s.id).sort());
    expect([row.agent_a_id, row.agent_b_id].sort()).toEqual(answered.map((s) => s.agent_id).sort());
    expect(new Set(sessions.map((s) => s.agent_id)).size).toBe(3);
    expect(
      [shown.a.response, shown.b.response].every(
        (r: string) => !r.endsWith(arena.agents[indexOf(failed.agent_id)]!.path),
      ),
    ).toBe(true);
    await recover(indexOf(failed.agent_id));
  });

  it('is void when the replacement fails too', async () => {
    arena.server.behave(firstOf('Only the first answers', answers, fails));
    const battle = (await start('Only the first answers.')).json();
    expect(await finished(battle.battle_id)).toBe('void');
    const sessions = await sessionsOf(await promptOf(battle.battle_id));
    expect(sessions.map((s) => s.status).sort()).toEqual(['answered', 'error', 'error']);
    const row = await battleRow(battle.battle_id);
    // Replaced once only: the battle's failed side is the replacement (the last delivery), and nothing came after it.
    expect([row.session_a_id, row.session_b_id]).toContain(sessions.at(-1)!.id);
    for (const s of sessions.filter((x) => x.status === 'error')) await recover(indexOf(s.agent_id));
  });

  it("never replaces a side with the judge's own agent or the other side's owner's", async () => {
    // The judge owns agent 2: the only agent left to replace a side with.
    const judge = arena.agents[2]!.owner;
    arena.server.behave(firstOf('No spare agent', fails, answers));
    const battle = (await start('No spare agent here.', judge)).json();
    expect(await finished(battle.battle_id)).toBe('void');
    const sessions = await sessionsOf(await promptOf(battle.battle_id));
    expect(sessions).toHaveLength(2);
    expect(sessions.map((s) => indexOf(s.agent_id)).sort()).toEqual([0, 1]);
    for (const s of sessions.filter((x) => x.status === 'error')) await recover(indexOf(s.agent_id));
  });
});
