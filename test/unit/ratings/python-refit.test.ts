/**
 * The method on one page is enough to reproduce the board: examples/ratings/refit.py, written from
 * docs/guides/ratings.md with numpy alone, recomputes the overall board from a vote export, and
 * its numbers are the arena's own fit's.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fitBoards, OVERALL } from '../../../domain/ratings/boards';
import { boardVote, type ExportedVote } from '../../../domain/ratings/vote-export';
import { findOrInstallPythonPackage } from '../../support/python-packages';
import { honestVerdict } from './synthetic-votes';
import { mulberry32 } from '../../../domain/ratings/random';

const run = promisify(execFile);
const SCRIPT = path.resolve(__dirname, '..', '..', '..', 'examples', 'ratings', 'refit.py');
export const NUMPY_PACKAGE = 'numpy==2.2.6';

async function numpyWorks(env: NodeJS.ProcessEnv): Promise<boolean> {
  try {
    await run('python3', ['-c', 'import numpy'], { env, timeout: 60_000 });
    return true;
  } catch {
    return false;
  }
}

/** An export of `count` votes among `agents` agents, with an unbeaten newcomer and a self-battle. */
function exportOf(agents: number, count: number, seed: number): ExportedVote[] {
  const random = mulberry32(seed);
  const strength = Array.from({ length: agents }, (_, i) => 1300 + (400 * i) / agents);
  const record = (k: number, a: number, b: number, winner: ExportedVote['winner']): ExportedVote => ({
    battle_id: k + 1,
    prompt_id: 100 + k,
    category: 'math',
    judge: `judge-${1 + (k % 5)}`,
    agent_a_id: a,
    agent_b_id: b,
    left: 'a',
    winner,
    voted_at: '2026-11-27T10:00:00.000000',
    a_length: 100,
    a_headers: 0,
    a_list_items: 0,
    a_bold: 0,
    b_length: 100,
    b_headers: 0,
    b_list_items: 0,
    b_bold: 0,
  });
  const votes = Array.from({ length: count }, (_, k) => {
    const a = 1 + Math.floor(random() * agents);
    const b = 1 + ((a + Math.floor(random() * (agents - 1))) % agents);
    return record(k, a, b, honestVerdict(random, strength[a - 1]!, strength[b - 1]!));
  });
  for (let k = 0; k < 6; k++) votes.push(record(count + k, agents + 1, 1 + k, 'a'));
  votes.push(record(count + 6, 2, 2, 'a'));
  return votes;
}

describe('examples/ratings/refit.py', () => {
  let env: NodeJS.ProcessEnv;
  let dir: string;
  beforeAll(async () => {
    const folder = await findOrInstallPythonPackage('numpy', NUMPY_PACKAGE, numpyWorks);
    env = { ...process.env, PYTHONPATH: folder, PYTHONDONTWRITEBYTECODE: '1' };
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-refit-'));
  }, 300_000);
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['twelve agents, 600 votes', 12, 600, 1],
    ['forty agents, 1,500 votes', 40, 1500, 2],
  ])(
    "recomputes the overall board from the export, to the arena's digits: %s",
    async (_, agents, count, seed) => {
      const votes = exportOf(agents, count, seed);
      const file = path.join(dir, `votes-${seed}.ndjson`);
      fs.writeFileSync(file, votes.map((v) => JSON.stringify(v)).join('\n') + '\n');
      const { stdout } = await run('python3', [SCRIPT, file, '--min-votes', '10'], { env, timeout: 120_000 });
      const theirs = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      const [ours] = fitBoards(votes.map(boardVote), { minVotes: 10, only: { board: OVERALL, styleControl: false } });
      expect(theirs.map((r: { agent_id: number }) => r.agent_id)).toEqual(ours!.entries.map((e) => e.agentId));
      ours!.entries.forEach((e, k) => {
        const row = theirs[k];
        expect(row).toMatchObject({
          rank: e.rank,
          separated: e.separated,
          votes: e.votes,
          wins: e.wins,
          losses: e.losses,
          ties: e.ties,
        });
        for (const [mine, python] of [
          [e.rating, row.bt_rating],
          [e.ciLow, row.ci_low],
          [e.ciHigh, row.ci_high],
        ])
          expect(Math.abs(mine! - python)).toBeLessThan(1e-6);
      });
      expect(theirs.find((r: { agent_id: number }) => r.agent_id === agents + 1)).toMatchObject({
        separated: true,
        wins: 6,
      });
    },
    120_000,
  );
});
