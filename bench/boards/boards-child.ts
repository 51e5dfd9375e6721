/**
 * Every board fitted in a process of its own, so its time and peak memory are its own: synthetic
 * votes (`votes` of them over `agents` agents and seven categories, with style features and a
 * judge who likes long answers) as the refresh gathers them, then every board, overall and per
 * category, raw and controlled for style, on two threads as the worker fits them; intervals in
 * closed form, or from `bootstrap` resamples. Sends the timings to the bench.
 */
import { fitBoardsInThreads } from '../../activities/leaderboard-fit';
import { VoteColumnsBuilder } from '../../activities/vote-columns';
import { mulberry32, standardNormal } from '../../domain/ratings/random';

export interface BoardsRequest {
  votes: number;
  agents: number;
  bootstrap?: number;
}

export interface BoardsReport {
  votes: number;
  boards: number;
  fitMs: number;
  /** Peak resident memory of this process (its fit threads included), MB. */
  maxRssMb: number;
}

const CATEGORIES = ['analysis', 'coding', 'math', 'reasoning', 'research', 'safety', 'writing'];
const ELO_PER_NAT = 400 / Math.LN10;

/** The votes as columns, drawn as in the rating tests' simulations: strengths N(0, 250) Elo, ties keeping the expected score. */
function syntheticColumns({ votes, agents }: BoardsRequest) {
  const random = mulberry32(20261127);
  const normal = standardNormal(mulberry32(20261128));
  const strength = Array.from({ length: agents }, () => (250 * normal()) / ELO_PER_NAT);
  const verbosity = Array.from({ length: agents }, () => 800 * Math.exp(0.5 * normal()));
  const ratio = (x: number, y: number) => (x - y) / (x + y + 1);
  const small = (most: number) => Math.floor(random() * (most + 1));
  const builder = new VoteColumnsBuilder();
  for (let k = 0; k < votes; k++) {
    const a = Math.floor(random() * agents);
    const b = (a + 1 + Math.floor(random() * (agents - 1))) % agents;
    const features = [
      ratio(verbosity[a]! * Math.exp(0.3 * normal()), verbosity[b]! * Math.exp(0.3 * normal())),
      ratio(small(3), small(3)),
      ratio(small(5), small(5)),
      ratio(small(2), small(2)),
    ];
    const chance = 1 / (1 + Math.exp(strength[b]! - strength[a]! - 1.5 * features[0]! - 0.1));
    const draw = 0.3 * Math.min(chance, 1 - chance);
    const outcome = random() < draw ? 'tie' : random() < (chance - draw / 2) / (1 - draw) ? 'a' : 'b';
    builder.add(k, { a: a + 1, b: b + 1, outcome, features, category: CATEGORIES[k % CATEGORIES.length]! });
  }
  return builder.build();
}

process.once('message', (request: BoardsRequest) => {
  const columns = syntheticColumns(request);
  const started = performance.now();
  fitBoardsInThreads(columns, { minVotes: 10, bootstrap: request.bootstrap }, 2).then(
    (boards) => {
      const report: BoardsReport = {
        votes: columns.count,
        boards: boards.length,
        fitMs: performance.now() - started,
        maxRssMb: process.resourceUsage().maxRSS / 1024,
      };
      process.send?.(report, () => process.exit(0));
    },
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
