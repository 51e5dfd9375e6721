/** `arena leaderboard fit` from a file alone: the board it prints, and the files and options it refuses. */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { main } from '../../../cli/main';
import { EXPORT_FIELDS } from '../../../domain/ratings/vote-export';

let dir: string;
let printed: string[];
let errors: string[];
const errorSpy = jest.spyOn(console, 'error');

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-fit-'));
});
beforeEach(() => {
  printed = [];
  errors = [];
  errorSpy.mockImplementation((line: string) => void errors.push(line));
});
afterAll(() => {
  errorSpy.mockRestore();
  fs.rmSync(dir, { recursive: true, force: true });
});

const arena = (...argv: string[]) => main(argv, (line) => printed.push(line), {});

const vote = (k: number, a: number, b: number, winner: string, category: string) => ({
  battle_id: k,
  prompt_id: 10 + k,
  category,
  judge: `judge-${1 + (k % 3)}`,
  agent_a_id: a,
  agent_b_id: b,
  left: 'a',
  winner,
  voted_at: '2026-11-25T10:00:00.000000',
  a_length: 300,
  a_headers: 1,
  a_list_items: 2,
  a_bold: 0,
  b_length: 120,
  b_headers: 0,
  b_list_items: 0,
  b_bold: 1,
});

const writeLines = (name: string, records: readonly object[]): string => {
  const file = path.join(dir, name);
  fs.writeFileSync(file, records.map((v) => JSON.stringify(v)).join('\n') + '\n');
  return file;
};

/** Agent 1 beats agent 2 three times in four, in `math`; agent 3 has one vote, in `live`. */
function writeExport(name: string): string {
  const votes = Array.from({ length: 40 }, (_, k) => vote(k + 1, 1, 2, k % 4 === 3 ? 'b' : 'a', 'math'));
  votes.push(vote(41, 3, 1, 'tie', 'live'));
  return writeLines(name, votes);
}

describe('arena leaderboard fit', () => {
  it('prints the board as a table with its intervals and what it was fitted with', async () => {
    const file = writeExport('votes.ndjson');
    expect(await arena('leaderboard', 'fit', '--votes', file, '--min-votes', '5')).toBe(0);
    expect(printed[0]).toBe('rank\tagent\trating\t95% interval\tvotes');
    const rows = printed.slice(1, 4).map((line) => line.split('\t'));
    expect(rows.map(([rank, agent]) => [rank, agent])).toEqual([
      ['1', '1'],
      [expect.stringMatching(/^[12]$/), '2'],
      ['provisional', '3'],
    ]);
    expect(rows[0]![3]).toMatch(/^\d+\.\d–\d+\.\d$/);
    expect(printed.at(-1)).toBe(
      'the overall board: 41 votes, 3 agents; Bradley-Terry with robust 95% intervals in closed form, provisional under 5 votes',
    );
    expect(errors).toEqual([]);
  });

  it("prints a category's board, controlled for style, with the style coefficients", async () => {
    const file = writeExport('math.ndjson');
    expect(await arena('leaderboard', 'fit', '--votes', file, '--category', 'math', '--style-control', '--json')).toBe(
      0,
    );
    const board = JSON.parse(printed.join('\n'));
    expect(board).toMatchObject({ board: 'math', style_control: true, votes: 40 });
    expect(board.rows.map((r: { agent_id: number }) => r.agent_id)).toEqual([1, 2]);
    expect(board.coefficients.map((c: { name: string }) => c.name)).toEqual([
      'length',
      'headers',
      'list_items',
      'bold',
      'position',
    ]);
  });

  it('says so when the board has no votes in the file', async () => {
    const file = writeExport('none.ndjson');
    expect(await arena('leaderboard', 'fit', '--votes', file, '--category', 'writing')).toBe(0);
    expect(printed).toEqual([`No votes on the writing board in ${file}.`]);
  });

  it('refuses a missing file, a bad record and a bad --min-votes, saying which, and prints no board', async () => {
    const missing = path.join(dir, 'missing.ndjson');
    const broken = path.join(dir, 'broken.csv');
    fs.writeFileSync(broken, `${EXPORT_FIELDS.join(',')}\n1,2,math\n`);
    const good = writeExport('good.ndjson');
    const cases: Array<[string[], RegExp]> = [
      [['--votes', missing], /^arena: cannot read .*missing\.ndjson: ENOENT/],
      [['--votes', broken], /^arena: .*broken\.csv: line 2 has 3 fields; the header names 17$/],
      [['--votes', good, '--min-votes', 'ten'], /^arena: --min-votes must be a whole number of at least 1, not ten$/],
      [['--votes', good, '--min-votes', '0'], /^arena: --min-votes must be a whole number of at least 1, not 0$/],
    ];
    for (const [args, message] of cases) {
      errors = [];
      printed = [];
      expect(await arena('leaderboard', 'fit', ...args)).not.toBe(0);
      expect(errors).toEqual([expect.stringMatching(message)]);
      expect(printed).toEqual([]);
    }
  });

  it('refuses a battle that comes twice, naming both lines: repeating one would weigh it more', async () => {
    const votes = Array.from({ length: 12 }, (_, k) => vote(k + 1, 1, 2, k % 3 ? 'a' : 'b', 'math'));
    votes.push(vote(5, 1, 2, 'a', 'math'));
    expect(await arena('leaderboard', 'fit', '--votes', writeLines('twice.ndjson', votes))).toBe(1);
    expect(errors).toEqual([
      expect.stringMatching(/twice\.ndjson: line 13 repeats battle_id 5 of line 5: a battle is one vote$/),
    ]);
    expect(printed).toEqual([]);
  });

  it('counts only the votes the fit counts, and names groups of agents that never met', async () => {
    const votes = [
      ...Array.from({ length: 12 }, (_, k) => vote(k + 1, 1, 2, k % 3 ? 'a' : 'b', 'math')),
      ...Array.from({ length: 12 }, (_, k) => vote(k + 13, 3, 4, k % 4 ? 'a' : 'tie', 'math')),
      // A battle of an agent against itself tells the fit nothing.
      vote(25, 2, 2, 'a', 'math'),
    ];
    const file = writeLines('groups.ndjson', votes);
    expect(await arena('leaderboard', 'fit', '--votes', file, '--min-votes', '5', '--json')).toBe(0);
    const board = JSON.parse(printed.join('\n'));
    expect(board).toMatchObject({
      votes: 24,
      intervals: 'closed form',
      groups: [
        [1, 2],
        [3, 4],
      ],
    });
    expect(board.rows.map((r: { rank: number }) => r.rank)).toEqual(
      [...board.rows.map((r: { rank: number }) => r.rank)].sort(),
    );
    printed = [];
    expect(await arena('leaderboard', 'fit', '--votes', file, '--min-votes', '5')).toBe(0);
    expect(printed).toContain(
      'The agents form 2 groups that never met one another (agents 1, 2; agents 3, 4): only the prior places one group against another.',
    );
    expect(printed.at(-1)).toMatch(/^the overall board: 24 votes, 4 agents;/);
  });

  it('takes the intervals from a seeded bootstrap on request, to compare, and refuses a bad count', async () => {
    const file = writeExport('bootstrap.ndjson');
    expect(await arena('leaderboard', 'fit', '--votes', file, '--min-votes', '5', '--bootstrap', '50')).toBe(0);
    expect(printed.at(-1)).toBe(
      'the overall board: 41 votes, 3 agents; Bradley-Terry with 50 bootstrap resamples (seed 20261122), provisional under 5 votes',
    );
    printed = [];
    expect(await arena('leaderboard', 'fit', '--votes', file, '--bootstrap', '0')).toBe(1);
    expect(errors).toEqual(['arena: --bootstrap must be a whole number of resamples from 1 to 10000, not 0']);
  });

  it('writes the whole board to a pipe before it exits, however large', async () => {
    // 1,500 agents in a chain of battles: a JSON board of several hundred KiB, far past a pipe's buffer.
    const votes = Array.from({ length: 3000 }, (_, k) =>
      vote(k + 1, 1 + (k % 1500), 1 + ((k + 1) % 1500), k % 3 ? 'a' : 'b', 'math'),
    );
    const file = writeLines('large.ndjson', votes);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(__dirname, '../../../cli/main.ts'),
        'leaderboard',
        'fit',
        '--votes',
        file,
        '--json',
        // The board's size is what is under test, not its intervals.
        '--bootstrap',
        '2',
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    const [code] = (await once(child, 'close')) as [number];
    const output = Buffer.concat(chunks).toString('utf8');
    expect(output.length).toBeGreaterThan(256 * 1024);
    expect(code).toBe(0);
    expect(JSON.parse(output).rows).toHaveLength(1500);
  }, 60_000);
});
