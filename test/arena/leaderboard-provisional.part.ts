import { startArena, type Arena } from './support';
import { registerJudge } from '../support/test-app';

interface Row {
  agent_id: number;
  rank: number | null;
  provisional: boolean;
  bt_rating: number;
  ci_low: number;
  ci_high: number;
  votes: number;
}

let arena: Arena;
let pairs = 0;

beforeAll(async () => {
  // The default minimum of 10 votes applies: nothing here sets ARENA_MIN_VOTES.
  arena = await startArena(3, { ARENA_MIN_GAP_SECONDS: '0' });
  for (let i = 0; i < 3; i++) await arena.dispatch();
}, 120_000);
afterAll(() => arena.close());

/** Records a voted battle between two agents' answers to the same prompt, straight in the table. */
async function voted(winnerIndex: number, loserIndex: number, count: number): Promise<void> {
  const [winner, loser] = [arena.agents[winnerIndex]!, arena.agents[loserIndex]!];
  const [pair] = await arena.sql<{ prompt_id: number; a: number; b: number }>(
    `select x.prompt_id, x.id as a, y.id as b from sessions x join sessions y on y.prompt_id = x.prompt_id
     where x.agent_id = ? and y.agent_id = ? and x.kind = 'main' and y.kind = 'main' limit 1`,
    [winner.id, loser.id],
  );
  expect(pair).toBeDefined();
  // Both answers out of judging: the votes are published, and counted, at the next refresh.
  await arena.sql(`update sessions set judging_until = null where id in (?, ?)`, [pair!.a, pair!.b]);
  for (let v = 0; v < count; v++) {
    const judge = await registerJudge(arena.t);
    pairs += 1;
    await arena.sql(
      `insert into battles (prompt_id, judge_id, session_a_id, session_b_id, agent_a_id, agent_b_id, pair_low, pair_high, status, winner, judged_as, voted_at, created_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, 'voted', 'a', 'trusted', now(), now())`,
      [pair!.prompt_id, judge.userId, pair!.a, pair!.b, winner.id, loser.id, 6_000_000 + pairs, 6_000_000 + pairs],
    );
  }
}

it('lists an agent with fewer than ARENA_MIN_VOTES votes as provisional, unranked and after the ranked ones, with an interval of real width', async () => {
  const [a, b, c] = arena.agents;
  // One vote between two agents: both provisional, neither ranked, no interval of zero width.
  await voted(0, 1, 1);
  await arena.refresh();
  let board: Row[] = (await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json();
  expect(board.map((row) => [row.agent_id, row.rank, row.provisional])).toEqual([
    [a!.id, null, true],
    [b!.id, null, true],
  ]);
  for (const row of board) {
    expect(row.ci_low).toBeLessThan(row.bt_rating);
    expect(row.ci_high).toBeGreaterThan(row.bt_rating);
  }

  // Agent 2 wins its only vote against agent 0 by a mile, yet stays provisional; agents 0 and 1
  // reach ten votes each and are ranked among themselves.
  await voted(0, 1, 8);
  await voted(1, 0, 1);
  await voted(2, 0, 1);
  await arena.refresh();
  board = (await arena.t.app.inject({ method: 'GET', url: '/api/leaderboard' })).json();
  expect(board.map((row) => [row.agent_id, row.votes, row.provisional])).toEqual([
    [a!.id, 11, false],
    [b!.id, 10, false],
    [c!.id, 1, true],
  ]);
  const ranked = board.filter((row) => !row.provisional);
  for (const row of ranked) {
    expect(row.rank).toBe(1 + ranked.filter((other) => other.ci_low > row.ci_high).length);
  }
  expect(board[2]!.rank).toBeNull();
  for (const row of board) {
    expect(row.ci_low).toBeLessThan(row.bt_rating);
    expect(row.ci_high).toBeGreaterThan(row.bt_rating);
  }

  // The website: the ranked agents with their rank numbers, then the provisional one, labelled.
  const page = (await arena.t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } })).body;
  const cells = [
    ...page.matchAll(/<tr>\s*<td class="num">(.*?)<\/td>\s*<td class="name"><a href="\/agents\/(\d+)">/g),
  ].map((m) => [m[1]!.replace(/<[^>]+>/g, '').trim(), Number(m[2])]);
  expect(cells).toEqual([
    [String(board[0]!.rank), a!.id],
    [String(board[1]!.rank), b!.id],
    ['Provisional', c!.id],
  ]);
  expect(page).toMatch(/fewer than 10 votes/);

  const markdown = (await arena.t.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/markdown' } })).body;
  const agentLines = markdown.split('\n').filter((line) => line.includes('/agents/'));
  expect(agentLines).toHaveLength(3);
  expect(agentLines[2]).toMatch(/^\| provisional \| \[agent-2\]/);
  expect(agentLines[0]).toMatch(new RegExp(`^\\| ${board[0]!.rank} \\| \\[agent-0\\]`));
  expect(markdown).toMatch(/fewer than 10 votes/);
});

it('describes rank and provisional in the OpenAPI document, for boards of agents and of claims', async () => {
  const spec = (await arena.t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  // An array of agents' rows, or (`by=model`, `by=tool`) of claims' rows.
  const boards = spec.paths['/api/leaderboard'].get.responses['200'].content['application/json'].schema.anyOf;
  expect(boards.map((b: { items: { properties: object } }) => 'claim' in b.items.properties)).toEqual([false, true]);
  for (const { items: entry } of boards) {
    expect(entry.properties.provisional.type).toBe('boolean');
    expect(entry.properties.rank.anyOf ?? entry.properties.rank.type).toEqual(
      expect.arrayContaining([expect.objectContaining({ type: 'null' })]),
    );
  }
});
