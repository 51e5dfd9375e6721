/** A small seeded random number generator, so bootstrap intervals are reproducible. */

// Bound once: inside a vm context (Temporal's workflow sandbox, jest) every global lookup such
// as `Math.exp` goes through the context's interceptors, which is slow in a hot loop.
const { PI, cos, imul, log, sin, sqrt } = Math;

/**
 * mulberry32: a 32-bit state generator that passes the usual statistical batteries and is
 * plenty for resampling; the same seed always gives the same sequence on every platform.
 * Returns floats in [0, 1).
 */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Standard normal draws from a uniform generator, by the Box-Muller transform. Each pair of
 * uniforms gives two draws; the second is kept for the next call, so a call allocates nothing.
 */
export function standardNormal(uniform: () => number): () => number {
  let spare = 0;
  let hasSpare = false;
  return () => {
    if (hasSpare) {
      hasSpare = false;
      return spare;
    }
    // 1 - u lies in (0, 1], so the logarithm is finite.
    const radius = sqrt(-2 * log(1 - uniform()));
    const angle = 2 * PI * uniform();
    spare = radius * sin(angle);
    hasSpare = true;
    return radius * cos(angle);
  };
}
