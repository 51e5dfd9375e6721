import {
  binomialTailAtLeast,
  codingRecord,
  NO_CODING,
  unusualArenaFaults,
  passAtK,
  suiteRecord,
  taskRecord,
  wilsonInterval,
} from '../../../domain/sandbox/pass-rate';

const counts = (passed: number, attempted: number) => ({ ...NO_CODING, passed, attempted });

describe('codingRecord', () => {
  it('gives no interval without an attempt', () => {
    expect(codingRecord(NO_CODING)).toEqual({
      ...NO_CODING,
      ci_low: null,
      ci_high: null,
      tampered_share: null,
      arena_error_share: null,
      arena_errors_unusual: false,
    });
  });

  it('gives every interval width, even at none or all of a few passed, and keeps it inside 0..1', () => {
    const none = codingRecord(counts(0, 3));
    const all = codingRecord(counts(3, 3));
    expect(none.ci_low).toBe(0);
    expect(none.ci_high).toBeGreaterThan(0.4);
    expect(all.ci_high).toBe(1);
    expect(all.ci_low).toBeLessThan(0.6);
  });

  it('matches the Wilson interval and narrows as attempts grow', () => {
    // 8 of 16: centre 0.5, Wilson 95% half-width 0.2265 (to 3 places: 0.280..0.720).
    expect(wilsonInterval(8, 16)).toEqual({ low: 0.28, high: 0.72 });
    const wide = codingRecord(counts(5, 10));
    const narrow = codingRecord(counts(500, 1000));
    expect(narrow.ci_high! - narrow.ci_low!).toBeLessThan(wide.ci_high! - wide.ci_low!);
  });

  it('keeps the other counts and rounds the means to a tenth', () => {
    expect(
      codingRecord({ attempted: 3, passed: 1, arena_errors: 2, tampered: 1, mean_steps: 7.666, mean_seconds: 92.04 }),
    ).toMatchObject({ arena_errors: 2, tampered: 1, mean_steps: 7.7, mean_seconds: 92 });
  });
});

describe('the honesty record', () => {
  it('gives the share of attempts found tampered with, and of sessions the arena ended', () => {
    const record = codingRecord({ ...counts(1, 8), tampered: 2, arena_errors: 2 });
    expect([record.tampered_share, record.arena_error_share]).toEqual([0.25, 0.2]);
  });

  it("marks an agent whose sessions the arena's failures end far more often than the arena's rate", () => {
    const arena = { faults: 20, ended: 1000 };
    // 9 of 12 against about 2%: no arena is that unlucky with one agent.
    expect(codingRecord({ ...counts(0, 3), arena_errors: 9 }, arena).arena_errors_unusual).toBe(true);
    expect(unusualArenaFaults(9, 12, arena)).toBe(true);
    // 1 of 30, or 2 of 40: within what the rate explains.
    expect(unusualArenaFaults(1, 30, arena)).toBe(false);
    expect(unusualArenaFaults(2, 40, arena)).toBe(false);
    // An arena that never failed does not make one failure of one agent unusual.
    expect(unusualArenaFaults(1, 5, { faults: 0, ended: 0 })).toBe(false);
    expect(codingRecord({ ...counts(0, 3), arena_errors: 9 }).arena_errors_unusual).toBe(false);
  });

  it('measures an agent against the rest of the arena, so its own voided attempts do not raise the bar', () => {
    // 6 of its 10 sessions ended by the arena, where the other 20 sessions never were: the arena's
    // total rate (7 of 31 with the one more) would explain it; the others' (1 of 21) does not.
    expect(unusualArenaFaults(6, 10, { faults: 6, ended: 30 })).toBe(true);
    expect(binomialTailAtLeast(6, 10, 7 / 31)).toBeGreaterThan(0.001);
  });

  it('computes the binomial tail exactly', () => {
    expect(binomialTailAtLeast(0, 10, 0.3)).toBe(1);
    expect(binomialTailAtLeast(11, 10, 0.3)).toBe(0);
    // P(X >= 2) for binomial(3, 0.5) = (3 + 1) / 8.
    expect(binomialTailAtLeast(2, 3, 0.5)).toBeCloseTo(0.5, 12);
    expect(binomialTailAtLeast(10, 10, 0.1)).toBeCloseTo(1e-10, 20);
  });
});

describe('taskRecord', () => {
  it('gives pass@1 as the share of attempts passed, none without attempts', () => {
    expect(taskRecord('python/leap-year', counts(2, 3)).pass_at_1).toBe(0.667);
    expect(taskRecord('python/leap-year', NO_CODING).pass_at_1).toBeNull();
  });
});

describe('passAtK', () => {
  /** The estimator's definition, with exact binomials: small enough here to count. */
  const binomial = (n: number, k: number): number =>
    k < 0 || k > n ? 0 : k === 0 ? 1 : (binomial(n - 1, k - 1) * n) / k;
  const byDefinition = (n: number, c: number, k: number) => 1 - binomial(n - c, k) / binomial(n, k);

  it('is the share of passes for k = 1, and 1 - C(n - c, k) / C(n, k) for every k', () => {
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4, 12);
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12);
    for (let n = 1; n <= 12; n++)
      for (let c = 0; c <= n; c++)
        for (let k = 1; k <= n; k++) expect(passAtK(n, c, k)).toBeCloseTo(byDefinition(n, c, k), 12);
  });

  it('stays exact where the binomials overflow', () => {
    expect(passAtK(2000, 1, 1)).toBeCloseTo(1 / 2000, 15);
    expect(passAtK(2000, 0, 1000)).toBe(0);
    expect(passAtK(2000, 1999, 2)).toBe(1);
  });

  it.each([
    [0, 0, 1],
    [3, 4, 1],
    [3, 1, 4],
    [3, 1, 0],
    [2.5, 1, 1],
  ])('refuses n %s, c %s, k %s', (n, c, k) => expect(() => passAtK(n, c, k)).toThrow(RangeError));
});

describe('suiteRecord', () => {
  it('averages pass@1 over the tasks attempted, with the interval over every attempt, and pass@k up to the fewest attempts', () => {
    const record = suiteRecord('humaneval', 164, [
      { attempted: 3, passed: 3 },
      { attempted: 3, passed: 0 },
      { attempted: 4, passed: 1 },
      { attempted: 0, passed: 0 },
    ]);
    expect(record).toEqual({
      suite: 'humaneval',
      tasks: 164,
      tasks_attempted: 3,
      attempted: 10,
      passed: 4,
      pass_at_1: Math.round(((1 + 0 + 0.25) / 3) * 1000) / 1000,
      ci_low: wilsonInterval(4, 10)!.low,
      ci_high: wilsonInterval(4, 10)!.high,
      pass_at_k: [
        { k: 2, value: Math.round(((1 + 0 + passAtK(4, 1, 2)) / 3) * 1000) / 1000 },
        { k: 3, value: Math.round(((1 + 0 + passAtK(4, 1, 3)) / 3) * 1000) / 1000 },
      ],
    });
  });

  it('says nothing it does not know: no attempt, no figure', () => {
    expect(suiteRecord('arena', 16, [])).toEqual({
      suite: 'arena',
      tasks: 16,
      tasks_attempted: 0,
      attempted: 0,
      passed: 0,
      pass_at_1: null,
      ci_low: null,
      ci_high: null,
      pass_at_k: [],
    });
  });
});
