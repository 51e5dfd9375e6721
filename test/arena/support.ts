/**
 * A small arena for tests: push agents of different owners on one loopback server, all past the gym
 * (test/support/past-the-gym.ts, unless `options.pastTheGym` is false, when the real gym runs and
 * is awaited): the files that use it do not test the gym, but for the gym's public answers.
 */
import { Client } from '@temporalio/client';
import { answer, startAgentServer, type TestAgentServer } from '../support/agent-server';
import { register, registerJudge, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { dispatchArena, refreshLeaderboard } from '../../workflows';

export interface Arena {
  t: TestApp;
  client: Client;
  server: TestAgentServer;
  owners: Registered[];
  agents: Array<{ id: number; owner: Registered; path: string; secret: string }>;
  /** Runs one dispatch step now (the schedule does this in production) and awaits every delivery it started. */
  dispatch(): Promise<number[]>;
  sql<T = Record<string, unknown>>(query: string, params?: unknown[]): Promise<T[]>;
  /** Refits the leaderboard now (the schedule does this in production); its summary, e.g. `3 agents from 12 votes; 0 judges flagged`. */
  refresh(): Promise<string>;
  /** A new trusted judge votes `a` on the pair judge/next hands them, then the leaderboard is refitted: the leaderboard has rows. */
  voteOnceAndRefresh(): Promise<void>;
  close(): Promise<void>;
}

let dispatches = 0;

export async function startArena(
  agentCount: number,
  env: Record<string, string> = {},
  options: Parameters<typeof startTestApp>[1] = {},
): Promise<Arena> {
  const pastTheGym = options.pastTheGym ?? true;
  const t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1', ...env }, { ...options, pastTheGym });
  const client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  // Each agent answers with its own path, so answers tell who wrote them.
  const server = await startAgentServer((req, res) => answer(200, { response: `answer from ${req.url}` })(req, res));
  await t.startWorker();
  const sql = <T>(query: string, params: unknown[] = []) => t.orm.em.getConnection().execute<T[]>(query, params);
  const owners: Registered[] = [];
  const agents: Arena['agents'] = [];
  for (let i = 0; i < agentCount; i++) {
    const owner = await register(t.app);
    owners.push(owner);
    const path = `/agent-${i}`;
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: `agent-${i}`, webhook_url: server.url.replace('/hook', path) },
    });
    agents.push({ id: res.json().id, owner, path, secret: res.json().webhook_secret });
  }
  if (!pastTheGym) await Promise.all(agents.map((a) => client.workflow.getHandle(`gym-${a.id}-1`).result()));
  const refresh = () =>
    client.workflow.execute(refreshLeaderboard, {
      taskQueue: t.config.taskQueue,
      workflowId: `refresh-test-${t.config.taskQueue}-${++dispatches}`,
    });
  return {
    t,
    client,
    server,
    owners,
    agents,
    sql,
    refresh,
    async dispatch() {
      const before = await sql<{ id: number }>(`select id from sessions where kind = 'main'`);
      const count = await client.workflow.execute(dispatchArena, {
        taskQueue: t.config.taskQueue,
        workflowId: `dispatch-test-${t.config.taskQueue}-${++dispatches}`,
      });
      const after = await sql<{ id: number }>(`select id from sessions where kind = 'main' and id > ? order by id`, [
        Math.max(0, ...before.map((r) => r.id)),
      ]);
      expect(after).toHaveLength(count as number);
      await Promise.all(after.map((s) => client.workflow.getHandle(deliveryWorkflowId(s.id)).result()));
      return after.map((s) => s.id);
    },
    async voteOnceAndRefresh() {
      const judge = await registerJudge(t);
      const battle = (await t.app.inject({ method: 'GET', url: '/api/judge/next', headers: judge.auth })).json();
      await t.app.inject({
        method: 'POST',
        url: `/api/judge/${battle.battle_id}/vote`,
        headers: judge.auth,
        payload: { winner: 'a' },
      });
      // The judging window passes for the pair's answers, so the refresh publishes the vote and counts it.
      await sql(
        `update sessions s set judging_until = now() from battles b
         where b.id = ? and s.id in (b.session_a_id, b.session_b_id) and s.judging_until > now()`,
        [battle.battle_id],
      );
      await refresh();
    },
    async close() {
      await server.close();
      await t.close();
    },
  };
}
