/**
 * The boards through the API: votes are published only once their answers leave judging; each
 * category's board counts its votes only; the style-controlled view and its coefficients; the
 * public export, and `arena leaderboard fit`, which refits it to the live numbers exactly.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../cli/main';
import { answer } from '../support/agent-server';
import { registerJudge } from '../support/test-app';
import { openVoteExport } from '../../services/leaderboards';
import { refreshLeaderboard } from '../../workflows';
import { startArena, type Arena } from './support';

/** Each agent writes in its own style: agent-0 long and structured, agent-1 terse, agent-2 in between with bold. */
const STYLES: Record<string, string> = {
  '/agent-0': `# Answer\n\n## Steps\n\n- first\n- second\n- third\n\n${'A long explanation. '.repeat(30)}`,
  '/agent-1': 'Short.',
  '/agent-2': `Some **bold** words and a middling explanation. ${'More words. '.repeat(8)}`,
};

const MIN_VOTES = 3;
let arena: Arena;
let dir: string;
let judges: number[];

beforeAll(async () => {
  arena = await startArena(3, { ARENA_MIN_GAP_SECONDS: '0', ARENA_MIN_VOTES: String(MIN_VOTES) });
  arena.server.behave((req, res) => answer(200, { response: STYLES[req.url!] ?? 'unknown' })(req, res));
  for (let i = 0; i < 4; i++) await arena.dispatch();
  judges = [];
  // Trusted judges: a new account's votes count only once it is established.
  for (let j = 0; j < 5; j++) judges.push((await registerJudge(arena.t)).userId);
  dir = mkdtempSync(path.join(tmpdir(), 'arena-boards-'));
}, 180_000);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await arena.close();
});

const get = (url: string) => arena.t.app.inject({ method: 'GET', url });
/** Votes a board counts: each vote is counted once for each of its two agents. */
const votesOn = (rows: Array<{ votes: number }>) => rows.reduce((sum, r) => sum + r.votes, 0) / 2;

/** The main answers to each prompt, with the prompt's category. */
async function answersByPrompt() {
  return arena.sql<{ prompt_id: number; category: string; sessions: number[]; agents: number[]; lengths: number[] }>(
    `select s.prompt_id, p.category, array_agg(s.id order by s.id) as sessions,
       array_agg(s.agent_id order by s.id) as agents, array_agg(length(s.response) order by s.id) as lengths
     from sessions s join prompts p on p.id = s.prompt_id
     where s.kind = 'main' and s.status = 'answered' group by s.prompt_id, p.category having count(*) >= 2`,
  );
}

let pairNumber = 0;
/** Every judge votes on every pair of answers to the prompt: the longer answer wins, except for one judge in five. */
async function voteOn(prompt: Awaited<ReturnType<typeof answersByPrompt>>[number]): Promise<number> {
  let cast = 0;
  for (let x = 0; x < prompt.sessions.length; x++)
    for (let y = x + 1; y < prompt.sessions.length; y++) {
      pairNumber++;
      for (const [j, judge] of judges.entries()) {
        // Sides alternate, so the left one is not always the longer.
        const [a, b] = (pairNumber + j) % 2 ? [x, y] : [y, x];
        const longerA = prompt.lengths[a]! > prompt.lengths[b]!;
        const winner = j === 4 ? 'tie' : longerA !== (j === 3) ? 'a' : 'b';
        await arena.sql(
          `insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high, status, winner, judged_as, voted_at, created_at)
           values (?, ?, ?, ?, ?, ?, ?, ?, 'voted', ?, 'trusted', now(), now())`,
          [
            prompt.prompt_id,
            judge,
            prompt.sessions[a],
            prompt.sessions[b],
            prompt.agents[a],
            prompt.agents[b],
            8_000_000 + pairNumber,
            8_000_000 + pairNumber,
            winner,
          ],
        );
        cast++;
      }
    }
  return cast;
}

describe('the boards', () => {
  let total = 0;
  const byCategory: Record<string, number> = {};

  it('count a vote only once both its answers have left judging, and the export lists it from the same refresh', async () => {
    const prompts = await answersByPrompt();
    expect(prompts.length).toBeGreaterThanOrEqual(2);
    for (const prompt of prompts) {
      const cast = await voteOn(prompt);
      total += cast;
      byCategory[prompt.category] = (byCategory[prompt.category] ?? 0) + cast;
    }
    // Every answer is still in judging: nothing is published, nothing counted, nothing exported.
    await arena.refresh();
    expect((await get('/api/leaderboard')).json()).toEqual([]);
    expect((await get('/api/votes')).body).toBe('');

    // Judging ends (the window passes); the next refresh publishes every vote and counts it.
    await arena.sql(`update sessions set judging_until = now() where judging_until > now()`);
    expect((await get('/api/votes')).body).toBe('');
    await arena.refresh();
    const board = (await get('/api/leaderboard')).json();
    expect(board).toHaveLength(3);
    expect(votesOn(board)).toBe(total);
    expect((await get('/api/votes')).body.trim().split('\n')).toHaveLength(total);
  });

  it("give each category a board of its prompts' votes only, and a live battle's vote none", async () => {
    const person = await registerJudge(arena.t);
    const started = await arena.t.app.inject({
      method: 'POST',
      url: '/api/battles',
      headers: person.auth,
      payload: { prompt: 'Write a haiku about tests.', category: 'poetry', deadline_seconds: 30 },
    });
    expect(started.statusCode).toBe(202);
    const battleId = started.json().battle_id;
    expect(await arena.client.workflow.getHandle(`battle-${battleId}`).result()).toBe('open');
    const vote = await arena.t.app.inject({
      method: 'POST',
      url: `/api/judge/${battleId}/vote`,
      headers: person.auth,
      payload: { winner: 'a' },
    });
    expect(vote.statusCode).toBe(200);
    await arena.refresh();

    // The live vote is the person's own comparison: no board counts it, and there is no live board.
    expect(votesOn((await get('/api/leaderboard')).json())).toBe(total);
    expect((await get('/api/leaderboard?category=live')).statusCode).toBe(400);
    for (const [category, cast] of Object.entries(byCategory)) {
      const rows = (await get(`/api/leaderboard?category=${category}`)).json();
      expect(votesOn(rows)).toBe(cast);
      const controlled = (await get(`/api/leaderboard?category=${category}&style_control=true`)).json();
      expect(votesOn(controlled)).toBe(cast);
    }
    // A pool category with no vote yet is a board with no rows; one the arena does not have is refused.
    const pool = await arena.sql<{ category: string }>(`select distinct category from prompts where source = 'pool'`);
    const unvoted = pool.find(({ category }) => !(category in byCategory));
    expect((await get(`/api/leaderboard?category=${unvoted!.category}`)).json()).toEqual([]);
    const unknown = await get('/api/leaderboard?category=poetry');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().detail).toMatch(/^category must be one of .*writing.*; "poetry" is not$/);
    expect((await get('/api/leaderboard?style_control=yes')).json()).toEqual({
      detail: 'style_control must be true or false',
    });
    expect((await get('/api/leaderboard/style?category=poetry')).statusCode).toBe(400);
    expect((await get('/api/votes?format=xml')).statusCode).toBe(400);
  });

  it('show the board controlled for style beside the raw one, with what each style feature is worth', async () => {
    const raw = (await get('/api/leaderboard')).json();
    const controlled = (await get('/api/leaderboard?style_control=true')).json();
    expect(controlled.map((r: { agent_id: number }) => r.agent_id).sort()).toEqual(
      raw.map((r: { agent_id: number }) => r.agent_id).sort(),
    );
    expect(Object.keys(controlled[0]).sort()).toEqual(Object.keys(raw[0]).sort());
    // The same votes, another fit: the counts agree, the ratings do not.
    for (const row of controlled) {
      const same = raw.find((r: { agent_id: number }) => r.agent_id === row.agent_id);
      expect([row.votes, row.wins, row.losses, row.ties]).toEqual([same.votes, same.wins, same.losses, same.ties]);
    }
    expect(controlled.map((r: { bt_rating: number }) => r.bt_rating)).not.toEqual(
      raw.map((r: { bt_rating: number }) => r.bt_rating),
    );
    const style = (await get('/api/leaderboard/style')).json();
    expect(style.board).toBe('all');
    expect(style.coefficients.map((c: { name: string }) => c.name)).toEqual([
      'length',
      'headers',
      'list_items',
      'bold',
      'position',
    ]);
    for (const c of style.coefficients) expect(c.ci_low).toBeLessThanOrEqual(c.ci_high);
  });

  it('export each counted vote with its style, the left side and a judge pseudonym that is stable but never the account', async () => {
    const res = await get('/api/votes');
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const lines = res.body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    // Every counted vote; the live battle's is not one.
    expect(lines).toHaveLength(total);
    const battles = await arena.sql<{ id: number; judge_id: number; agent_a_id: number }>(
      `select id, judge_id, agent_a_id from battles where status = 'voted'`,
    );
    const judgeOf = new Map(battles.map((b) => [b.id, b.judge_id]));
    const pseudonymOf = new Map<number, string>();
    for (const line of lines) {
      const judge = judgeOf.get(line.battle_id)!;
      expect(line.judge).not.toContain(String(judge));
      if (pseudonymOf.has(judge)) expect(line.judge).toBe(pseudonymOf.get(judge));
      pseudonymOf.set(judge, line.judge);
      expect(line.left).toBe('a');
      expect(line.agent_a_id).toBe(battles.find((b) => b.id === line.battle_id)!.agent_a_id);
    }
    // Different judges, different pseudonyms.
    expect(new Set(pseudonymOf.values()).size).toBe(pseudonymOf.size);
    // agent-0's long, structured answer, counted as the fit counts it.
    const agent0 = arena.agents[0]!.id;
    const side = lines.find((l) => l.agent_a_id === agent0);
    expect([side.a_length, side.a_headers, side.a_list_items, side.a_bold]).toEqual([
      [...STYLES['/agent-0']!].length,
      2,
      3,
      0,
    ]);
    const csv = await get('/api/votes?format=csv');
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.body.split('\n')[0]).toBe(
      'battle_id,prompt_id,category,judge,agent_a_id,agent_b_id,left,winner,voted_at,a_length,a_headers,a_list_items,a_bold,b_length,b_headers,b_list_items,b_bold',
    );
    expect(csv.body.trim().split('\n')).toHaveLength(total + 1);
    const accepted = await arena.t.app.inject({ method: 'GET', url: '/api/votes', headers: { accept: 'text/csv' } });
    expect(accepted.body).toBe(csv.body);
  });

  it('lets two exports be downloaded at once from a server, and refuses a third with a 503 before sending anything', async () => {
    const held = [openVoteExport(arena.t.orm.em.fork()), openVoteExport(arena.t.orm.em.fork())];
    const refused = await get('/api/votes');
    expect([refused.statusCode, refused.headers['retry-after']]).toEqual([503, '5']);
    expect(refused.json()).toEqual({
      detail: '2 vote exports are being downloaded from this server already; try again in a few seconds',
    });
    // Given back twice: counted once.
    held[0]!.release();
    held[0]!.release();
    expect((await get('/api/votes')).statusCode).toBe(200);
    expect((await get('/api/votes')).statusCode).toBe(200);
    held[1]!.release();
    // Each finished download gives its place back: one after another, none is refused.
    for (let i = 0; i < 4; i++) expect((await get('/api/votes?format=csv')).statusCode).toBe(200);
  });

  it('give the refresh minutes to fit every board, with a heartbeat to notice a lost worker within one', async () => {
    const handle = await arena.client.workflow.start(refreshLeaderboard, {
      taskQueue: arena.t.config.taskQueue,
      workflowId: `refresh-timeouts-${Date.now()}`,
    });
    await handle.result();
    const { events } = await handle.fetchHistory();
    const scheduled = events!.find(
      (e) => e.activityTaskScheduledEventAttributes,
    )!.activityTaskScheduledEventAttributes!;
    // Every board of a million votes takes seconds (minutes with the bootstrap); the arena's activities get half an hour.
    expect(Number(scheduled.startToCloseTimeout!.seconds)).toBe(30 * 60);
    expect(Number(scheduled.heartbeatTimeout!.seconds)).toBe(60);
  });

  it('refit from the export by `arena leaderboard fit` to the very numbers of the live boards, JSON lines or CSV', async () => {
    const ndjson = path.join(dir, 'votes.ndjson');
    const csv = path.join(dir, 'votes.csv');
    writeFileSync(ndjson, (await get('/api/votes')).body);
    writeFileSync(csv, (await get('/api/votes?format=csv')).body);
    const fit = async (args: string[]) => {
      const out: string[] = [];
      const code = await main(['leaderboard', 'fit', '--min-votes', String(MIN_VOTES), '--json', ...args], (line) =>
        out.push(line),
      );
      expect(code).toBe(0);
      return JSON.parse(out.join('\n'));
    };
    const fields = [
      'agent_id',
      'rank',
      'provisional',
      'bt_rating',
      'ci_low',
      'ci_high',
      'votes',
      'wins',
      'losses',
      'ties',
    ];
    const pick = (rows: Array<Record<string, unknown>>) =>
      rows.map((r) => Object.fromEntries(fields.map((f) => [f, r[f]])));
    const category = Object.keys(byCategory)[0]!;
    for (const [query, args] of [
      ['', []],
      ['?style_control=true', ['--style-control']],
      [`?category=${category}`, ['--category', category]],
      [`?category=${category}&style_control=true`, ['--category', category, '--style-control']],
    ] as const) {
      const live = pick((await get(`/api/leaderboard${query}`)).json());
      expect(live.length).toBeGreaterThan(0);
      for (const file of [ndjson, csv]) expect(pick((await fit(['--votes', file, ...args])).rows)).toEqual(live);
    }
    const refitted = await fit(['--votes', csv, '--style-control']);
    expect(refitted.coefficients).toEqual((await get('/api/leaderboard/style')).json().coefficients);
  });

  it("fit the same boards with the agents' claimed models and tools as the players, on the API and the website", async () => {
    const [a0, a1, a2] = arena.agents.map((a) => a.id);
    // Two spellings of one model meet as one claim; agent-1 and agent-2 claim no tools.
    await arena.sql(
      `update agents set model_claimed = 'GPT-4o', tools_claimed = '["Browser", "python"]' where id = ?`,
      [a0],
    );
    await arena.sql(`update agents set model_claimed = '  gpt-4o ', tools_claimed = '[]' where id = ?`, [a1]);
    await arena.sql(`update agents set model_claimed = 'Claude  3.5', tools_claimed = '[]' where id = ?`, [a2]);
    await arena.refresh();
    const agents = (await get('/api/leaderboard')).json() as Array<{ agent_id: number; votes: number }>;
    const votesOf = (id: number) => agents.find((r) => r.agent_id === id)!.votes;
    const exported = (await get('/api/votes')).body
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const between = (x: number[], y: number[]) =>
      exported.filter(
        (v) =>
          (x.includes(v.agent_a_id) && y.includes(v.agent_b_id)) ||
          (y.includes(v.agent_a_id) && x.includes(v.agent_b_id)),
      ).length;

    const byModel = (await get('/api/leaderboard?by=model')).json();
    expect(byModel.map((r: { claim: string }) => r.claim).sort()).toEqual(['claude 3.5', 'gpt-4o']);
    const gpt = byModel.find((r: { claim: string }) => r.claim === 'gpt-4o');
    // Its agents' votes against the other claim's; agent-0 against agent-1 is a claim against itself.
    expect(gpt).toMatchObject({ agents: 2, votes: between([a0!, a1!], [a2!]) });
    expect(byModel.find((r: { claim: string }) => r.claim === 'claude 3.5').votes).toBe(
      votesOf(a2!) - between([a2!], [a2!]),
    );
    for (const row of byModel) expect(row.ci_low).toBeLessThan(row.ci_high);

    const byTool = (await get('/api/leaderboard?by=tool&style_control=true')).json();
    expect(byTool.map((r: { claim: string; agents: number }) => [r.claim, r.agents]).sort()).toEqual([
      ['browser + python', 1],
      ['no tools', 2],
    ]);
    expect(byTool[0].votes).toBe(between([a0!], [a1!, a2!]));
    const style = (await get('/api/leaderboard/style?by=tool')).json();
    expect(style.coefficients.map((c: { name: string }) => c.name)).toEqual([
      'length',
      'headers',
      'list_items',
      'bold',
      'position',
    ]);
    const category = Object.keys(byCategory)[0]!;
    expect((await get(`/api/leaderboard?by=model&category=${category}`)).statusCode).toBe(200);
    expect((await get('/api/leaderboard?by=owner')).json()).toEqual({ detail: 'by must be agent, model or tool' });

    const page = await arena.t.app.inject({ method: 'GET', url: '/claims?by=model', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('gpt-4o');
    expect(page.body).toContain('the arena does not check it');
    expect(page.body).not.toContain('whose owner claimed none');
    // The tools board says what its players are, "no tools" among them.
    const tools = await arena.t.app.inject({ method: 'GET', url: '/claims?by=tool', headers: { accept: 'text/html' } });
    expect(tools.body).toContain('no tools</td>');
    expect(tools.body).toContain('the whole set of tools an agent claims');
    expect(tools.body).toMatch(/no tools(&quot;|&#34;|") is every agent whose owner claimed none/);
    expect((await arena.t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })).body).toContain(
      'href="/claims?by=tool"',
    );
  });
});
