/**
 * The reference model the concentration tests measure groups against: Bradley-Terry strengths fitted
 * to the reference votes (the operator's trusted judges'), with a prior at the spread of a real
 * arena, and each agent's Fisher information; with the numerics the tests share.
 */
import { BradleyTerrySolver } from './bt-fit';
import { ELO_SCALE } from './elo';
import { pairTotals, tabulateVotes, type BattleVote } from './vote-table';

// Bound once: inside a vm context every global lookup such as `Math.exp` goes through the context's interceptors.
const { abs, exp, LN10 } = Math;

/** The reference model's prior: sd 400 Elo, in natural-log strength units. */
const PRIOR_SD_NATS = (400 * LN10) / ELO_SCALE;
const PRIOR_PRECISION = 1 / (PRIOR_SD_NATS * PRIOR_SD_NATS);

/** What the tests read of the model: an agent's strength (natural-log units) and the information behind it. */
export interface Model {
  strength(agentId: number): number;
  information(agentId: number): number;
}

/** Strengths and Fisher information fitted to the reference votes; agents it never saw sit at the prior. */
export function referenceModel(reference: readonly BattleVote[]): Model {
  const table = tabulateVotes(reference);
  const n = table.agentIds.length;
  const theta = new Float64Array(n);
  const information = new Float64Array(n);
  if (n > 0) {
    const solver = new BradleyTerrySolver(table.pairs, {
      priorPrecision: PRIOR_PRECISION,
      tolerance: 1e-6,
      maxIterations: 100,
    });
    const pairCount = table.pairs.first.length;
    const score = new Float64Array(pairCount);
    const games = new Float64Array(pairCount);
    pairTotals(table, new Int32Array(table.outcomeKeys.length).fill(1), score, games);
    solver.solve(score, games, theta);
    for (let p = 0; p < pairCount; p++) {
      const i = table.pairs.first[p]!;
      const j = table.pairs.second[p]!;
      const q = sigmoid(theta[i]! - theta[j]!);
      information[i]! += games[p]! * q * (1 - q);
      information[j]! += games[p]! * q * (1 - q);
    }
  }
  const index = new Map<number, number>();
  table.agentIds.forEach((id, i) => index.set(id, i));
  return {
    strength: (agentId) => {
      const i = index.get(agentId);
      return i === undefined ? 0 : theta[i]!;
    },
    information: (agentId) => {
      const i = index.get(agentId);
      return PRIOR_PRECISION + (i === undefined ? 0 : information[i]!);
    },
  };
}

export function sigmoid(x: number): number {
  return x >= 0 ? 1 / (1 + exp(-x)) : exp(x) / (1 + exp(x));
}

/**
 * The complementary error function, by the Chebyshev fit of Numerical Recipes (relative error below
 * 1.2e-7 everywhere), which is all a threshold of 1e-4 or so needs.
 */
export function erfc(x: number): number {
  const z = abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}
