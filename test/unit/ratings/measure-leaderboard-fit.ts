/**
 * Measures one leaderboard refit (Bradley-Terry and its intervals, in closed form or from bootstrap
 * resamples) on synthetic votes: wall time and peak resident memory. Not a test: run it by hand on
 * an idle machine,
 *   npx tsx test/unit/ratings/measure-leaderboard-fit.ts <agents> <votes> [bootstrap resamples]
 */

import { fitLeaderboard } from '../../../domain/ratings/bradley-terry';
import { mulberry32, standardNormal } from '../../../domain/ratings/random';
import { syntheticVotes } from './synthetic-votes';

const [agents = 1000, votes = 100_000, bootstrap] = process.argv.slice(2).map(Number);

// True ratings spread like a live arena's: normal around 1500 with an sd of 200 points.
const normal = standardNormal(mulberry32(1));
const truth = Array.from({ length: agents }, () => 1500 + 200 * normal());
const cast = syntheticVotes(truth, votes, 2);

const started = performance.now();
const entries = fitLeaderboard(cast, { bootstrap, seed: 20261122 });
const seconds = (performance.now() - started) / 1000;

// maxRSS is in kilobytes, and covers the whole process: the votes themselves included.
const peakMb = process.resourceUsage().maxRSS / 1024;
const widths = entries.map((entry) => entry.ciHigh - entry.ciLow).sort((x, y) => x - y);
console.log(
  JSON.stringify({
    agents,
    votes,
    bootstrap: bootstrap ?? 'none',
    fitted: entries.length,
    seconds: Number(seconds.toFixed(2)),
    peakRssMb: Math.round(peakMb),
    medianIntervalWidth: Number(widths[widths.length >> 1]?.toFixed(1)),
  }),
);
