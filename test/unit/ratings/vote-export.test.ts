/** The public vote export's format: written as JSON lines or CSV, read back, and refitted to the very numbers of the boards. */
import { LIVE, OVERALL, boardCategory, fitBoards } from '../../../domain/ratings/boards';
import { mulberry32 } from '../../../domain/ratings/random';
import { EXPORT_FIELDS, boardVote, csvLines, readExport, type ExportedVote } from '../../../domain/ratings/vote-export';
import { honestVerdict, randomPair } from './synthetic-votes';

const STRENGTH = [1400, 1450, 1500, 1560, 1620];
const CATEGORIES = ['coding', 'math', 'writing, long form'];

/** Votes as the export writes them: side a on the left, style counts per answer, a few judges. */
function exported(count: number, seed: number): ExportedVote[] {
  const random = mulberry32(seed);
  const small = (n: number) => Math.floor(random() * n);
  return Array.from({ length: count }, (_, k) => {
    const [a, b] = randomPair(random, STRENGTH.length);
    return {
      battle_id: k + 1,
      prompt_id: 100 + small(20),
      category: CATEGORIES[small(CATEGORIES.length)]!,
      judge: `judge-${1 + small(4)}`,
      agent_a_id: a,
      agent_b_id: b,
      left: 'a' as const,
      winner: honestVerdict(random, STRENGTH[a - 1]!, STRENGTH[b - 1]!),
      voted_at: `2026-11-${String(1 + small(28)).padStart(2, '0')}T12:00:00.000000`,
      a_length: 100 * a + small(400),
      a_headers: small(3),
      a_list_items: small(6),
      a_bold: small(4),
      b_length: 100 * b + small(400),
      b_headers: small(3),
      b_list_items: small(6),
      b_bold: small(4),
    };
  });
}

const ndjson = (votes: readonly ExportedVote[]) => votes.map((v) => JSON.stringify(v));
/** The CSV split into lines as a reader of the file sees them. */
const csv = (votes: readonly ExportedVote[]) => csvLines(votes, true).split('\n');
const options = { minVotes: 5 };

describe('the vote export', () => {
  const votes = exported(600, 11);

  it.each([
    ['JSON lines', ndjson],
    ['CSV', csv],
  ])('round-trips through %s: every record read back as written, refitted to the same boards', async (_, write) => {
    const read = await readExport(write(votes));
    expect(read).toEqual({ ok: true, votes });
    if (!read.ok) return;
    const boards = fitBoards(votes.map(boardVote), options);
    expect(fitBoards(read.votes.map(boardVote), options)).toEqual(boards);
    // The overall board and one per category, each raw and controlled.
    expect(boards.map((b) => `${b.board}/${b.styleControl}`)).toEqual(
      [OVERALL, ...CATEGORIES].flatMap((board) => [`${board}/false`, `${board}/true`]),
    );
  });

  it('reads a vote whose left side was b the other way round, so it counts as the same vote', () => {
    const swapped = votes.map((v): ExportedVote => ({
      ...v,
      left: 'b',
      agent_a_id: v.agent_b_id,
      agent_b_id: v.agent_a_id,
      winner: v.winner === 'a' ? 'b' : v.winner === 'b' ? 'a' : v.winner,
      a_length: v.b_length,
      a_headers: v.b_headers,
      a_list_items: v.b_list_items,
      a_bold: v.b_bold,
      b_length: v.a_length,
      b_headers: v.a_headers,
      b_list_items: v.a_list_items,
      b_bold: v.a_bold,
    }));
    expect(swapped.map(boardVote)).toEqual(votes.map(boardVote));
    // Read naively (side a as the left), the position effect would flip sign: the field matters.
    const naive = fitBoards(
      swapped.map((v) => boardVote({ ...v, left: 'a' })),
      { ...options, only: { board: OVERALL, styleControl: true } },
    );
    const fair = fitBoards(swapped.map(boardVote), { ...options, only: { board: OVERALL, styleControl: true } });
    const position = (b: typeof fair) => b[0]!.coefficients.find((c) => c.name === 'position')!.estimate;
    expect(position(naive)).toBeCloseTo(-position(fair), 6);
  });

  it('fits a category board from its own votes only, and one board alone to the numbers of the full refresh', () => {
    const all = fitBoards(votes.map(boardVote), options);
    for (const board of CATEGORIES) {
      const fitted = all.find((b) => b.board === board && !b.styleControl)!;
      const votesThere = votes.filter((v) => v.category === board).length;
      expect(fitted.entries.reduce((sum, e) => sum + e.votes, 0)).toBe(2 * votesThere);
      const alone = fitBoards(votes.map(boardVote), { ...options, only: { board, styleControl: true } });
      expect(alone).toEqual([all.find((b) => b.board === board && b.styleControl)]);
    }
  });

  it('refuses a file at its first bad record, naming the line and the field', async () => {
    const good = JSON.stringify(votes[0]);
    const cases: Array<[string[], string]> = [
      [[good, '{"battle_id": 2'], 'line 2 is not JSON (an export is JSON lines, or CSV with its header line)'],
      [[good, '', JSON.stringify({ ...votes[1], winner: 'left' })], 'line 3: winner: '],
      [[JSON.stringify({ ...votes[0], a_length: -1 })], 'line 1: a_length: '],
      [[JSON.stringify({ ...votes[0], judge: undefined })], 'line 1: judge: '],
      [[JSON.stringify({ ...votes[0], voted_at: 'yesterday' })], 'line 1: voted_at: '],
      [[EXPORT_FIELDS.join(','), '1,2,coding'], 'line 2 has 3 fields; the header names 17'],
      [[EXPORT_FIELDS.join(','), '1,2,"coding'], 'line 2 is not a CSV record: '],
      [['[1, 2, 3]'], 'line 1: the record: '],
    ];
    for (const [lines, error] of cases) {
      const read = await readExport(lines);
      expect(read.ok).toBe(false);
      if (!read.ok) expect(read.error.startsWith(error)).toBe(true);
    }
  });

  it('reads an empty file as no votes, and blank lines as nothing', async () => {
    expect(await readExport([])).toEqual({ ok: true, votes: [] });
    expect(await readExport(['', EXPORT_FIELDS.join(','), ''])).toEqual({ ok: true, votes: [] });
    expect(await readExport(['', JSON.stringify(votes[0]), '  '])).toEqual({ ok: true, votes: [votes[0]] });
  });
});

describe('boardCategory', () => {
  it("counts a vote on its prompt's pool category, and on `live` when the category is none of the pool's", () => {
    const pool = new Set(['coding', 'math']);
    expect(boardCategory('math', pool)).toBe('math');
    expect(boardCategory('poetry', pool)).toBe(LIVE);
    // A live battle given a pool category counts on that category's board.
    expect(boardCategory('coding', pool)).toBe('coding');
  });
});
