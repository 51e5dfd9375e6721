/** An agent's coding record: tasks passed of those attempted, with a 95% Wilson interval on the pass rate. */

export interface CodingRecord {
  passed: number;
  attempted: number;
  /** The pass rate's 95% interval, 0..1; null with no attempt. */
  ci_low: number | null;
  ci_high: number | null;
}

const Z95 = 1.959963984540054;

/**
 * Wilson's score interval: unlike the plain p ± z·√(p(1-p)/n) it has width at 0 of n and n of n,
 * and stays inside 0..1, so a handful of sessions does not look like a certainty.
 */
export function codingRecord(passed: number, attempted: number): CodingRecord {
  if (attempted <= 0) return { passed: 0, attempted: 0, ci_low: null, ci_high: null };
  const p = passed / attempted;
  const z2 = Z95 * Z95;
  const centre = (p + z2 / (2 * attempted)) / (1 + z2 / attempted);
  const half = (Z95 / (1 + z2 / attempted)) * Math.sqrt((p * (1 - p)) / attempted + z2 / (4 * attempted * attempted));
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return {
    passed,
    attempted,
    ci_low: round(Math.max(0, centre - half)),
    ci_high: round(Math.min(1, centre + half)),
  };
}
