/**
 * The intervals say what they mean: boards drawn from a known truth, raw, controlled for style and
 * sparse like a category's, with and without a judge who loves long answers, and the share of
 * intervals that hold the truth checked against the 95% they state. Seeded, so a run is repeatable.
 */
import { fitLeaderboard, type FittedRating } from '../../../domain/ratings/bradley-terry';
import { mulberry32, standardNormal } from '../../../domain/ratings/random';
import { STYLE_MIN_VOTES, fitStyleControlled } from '../../../domain/ratings/style-control';
import { STYLE_FEATURES } from '../../../domain/ratings/style';
import { honestVerdict, styledArena, syntheticVotes } from './synthetic-votes';

/** Pooled over hundreds of intervals the share covered has a standard error near 1%: the band is about three either side. */
const BAND = { low: 0.92, high: 0.99 };

/** How many of the entries' intervals hold the agent's true strength (`truth[id - 1]`, Elo, anchored here at a mean of 1500). */
function covered(entries: readonly FittedRating[], truth: readonly number[], ids = entries.map((e) => e.agentId)) {
  const mean = truth.reduce((sum, t) => sum + t, 0) / truth.length;
  const wanted = new Set(ids);
  let hits = 0;
  for (const e of entries) {
    if (!wanted.has(e.agentId)) continue;
    const target = truth[e.agentId - 1]! - mean + 1500;
    if (e.ciLow <= target && target <= e.ciHigh) hits++;
  }
  return hits;
}

function spreadTruth(agents: number, seed: number): number[] {
  const normal = standardNormal(mulberry32(seed));
  return Array.from({ length: agents }, () => 250 * normal());
}

describe('coverage of the 95% intervals', () => {
  it('raw boards: 30 agents, 50 votes each, 20 boards', () => {
    let hits = 0;
    let total = 0;
    for (let board = 0; board < 20; board++) {
      const truth = spreadTruth(30, 100 + board);
      const entries = fitLeaderboard(syntheticVotes(truth, 750, board));
      hits += covered(entries, truth);
      total += entries.length;
    }
    expect(total).toBe(600);
    expect(hits / total).toBeGreaterThanOrEqual(BAND.low);
    expect(hits / total).toBeLessThanOrEqual(BAND.high);
  });

  it.each([
    ['a judge who cares for strength alone', 0, 0],
    ['a judge who loves long answers and the left side', 2.5, 0.3],
  ])('boards controlled for style, %s: the strengths', (_, lengthEffect, leftEffect) => {
    let hits = 0;
    let total = 0;
    for (let board = 0; board < 20; board++) {
      const arena = styledArena(30, 1500, 300 + board, { lengthEffect, leftEffect });
      const { entries } = fitStyleControlled(arena.votes, { featureNames: STYLE_FEATURES });
      hits += covered(entries, arena.strength);
      total += entries.length;
    }
    expect(hits / total).toBeGreaterThanOrEqual(BAND.low);
    expect(hits / total).toBeLessThanOrEqual(BAND.high);
  });

  it("a category's sparse board (28 votes an agent): the top and bottom tenths covered at 88% or more", () => {
    const agents = 2000;
    const tenths = { top: [0, 0], bottom: [0, 0], all: [0, 0] };
    for (let board = 0; board < 2; board++) {
      const truth = spreadTruth(agents, 500 + board);
      const entries = fitLeaderboard(syntheticVotes(truth, agents * 14, 50 + board));
      const order = truth.map((t, i) => [t, i + 1] as const).sort((x, y) => x[0] - y[0]);
      const bottom = order.slice(0, agents / 10).map(([, id]) => id);
      const top = order.slice(-agents / 10).map(([, id]) => id);
      for (const [name, ids] of [
        ['top', top],
        ['bottom', bottom],
        ['all', undefined],
      ] as const) {
        tenths[name][0]! += covered(entries, truth, ids);
        tenths[name][1]! += ids?.length ?? entries.length;
      }
    }
    expect(tenths.top[0]! / tenths.top[1]!).toBeGreaterThanOrEqual(0.88);
    expect(tenths.bottom[0]! / tenths.bottom[1]!).toBeGreaterThanOrEqual(0.88);
    expect(tenths.all[0]! / tenths.all[1]!).toBeGreaterThanOrEqual(BAND.low);
    expect(tenths.all[0]! / tenths.all[1]!).toBeLessThanOrEqual(BAND.high);
  });

  it('a sparse category board controlled for style, with a length-loving judge', () => {
    const arena = styledArena(1500, 1500 * 14, 77, { lengthEffect: 2.5, leftEffect: 0.2 });
    const { entries } = fitStyleControlled(arena.votes, { featureNames: STYLE_FEATURES });
    const share = covered(entries, arena.strength) / entries.length;
    expect(share).toBeGreaterThanOrEqual(BAND.low);
    expect(share).toBeLessThanOrEqual(BAND.high);
  });

  it('an unbeaten newcomer, 250 Elo above the field: its interval holds its true strength 90% of the time or more', () => {
    // A field of 30 with 50 votes each, and a newcomer that plays ten of them; only the boards on
    // which it won all ten count (about one in twelve), as on the audited board.
    let boards = 0;
    let hits = 0;
    for (let seed = 0; boards < 40; seed++) {
      const field = spreadTruth(30, 1000 + seed);
      const fieldMean = field.reduce((sum, t) => sum + t, 0) / field.length;
      const truth = [...field, fieldMean + 250];
      const random = mulberry32(2000 + seed);
      const games = Array.from({ length: 10 }, () => {
        const opponent = 1 + Math.floor(random() * 30);
        return { a: 31, b: opponent, outcome: honestVerdict(random, truth[30]!, truth[opponent - 1]!) };
      });
      if (games.some((g) => g.outcome !== 'a')) continue;
      boards++;
      const entries = fitLeaderboard([...syntheticVotes(field, 750, seed), ...games]);
      const newcomer = entries.find((e) => e.agentId === 31)!;
      expect(newcomer).toMatchObject({ votes: 10, wins: 10, separated: true });
      hits += covered([newcomer], truth);
    }
    expect(hits / boards).toBeGreaterThanOrEqual(0.9);
  });
});

describe('style effects on boards where style does nothing', () => {
  // 400 boards of six agents at each size (the share's standard error is about 1%); judges weigh strength alone.
  const boards = 400;
  const sizes = [15, 60, STYLE_MIN_VOTES, 400];
  const clearShare = sizes.map((votes) => {
    let anyInterval = 0;
    let anyShown = 0;
    for (let board = 0; board < boards; board++) {
      const { coefficients } = fitStyleControlled(styledArena(6, votes, 10_000 * votes + board).votes, {
        featureNames: STYLE_FEATURES,
      });
      const clear = coefficients.some((c) => c.ciLow > 0 || c.ciHigh < 0);
      if (clear) anyInterval++;
      if (clear && votes >= STYLE_MIN_VOTES) anyShown++;
    }
    return { votes, interval: anyInterval / boards, shown: anyShown / boards };
  });

  it('print a clear effect on at most 5% of boards, of any size', () => {
    for (const { shown } of clearShare) expect(shown).toBeLessThanOrEqual(0.05);
  });

  it('hold zero in all five joint intervals on 95% of boards or more, even below the vote threshold', () => {
    for (const { interval } of clearShare) expect(interval).toBeLessThanOrEqual(0.05);
  });
});
