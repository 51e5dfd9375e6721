import { codingRecord } from '../../domain/sandbox/pass-rate';

describe('codingRecord', () => {
  it('gives no interval without an attempt', () => {
    expect(codingRecord(0, 0)).toEqual({ passed: 0, attempted: 0, ci_low: null, ci_high: null });
  });

  it('gives every interval width, even at none or all of a few passed, and keeps it inside 0..1', () => {
    const none = codingRecord(0, 3);
    const all = codingRecord(3, 3);
    expect(none.ci_low).toBe(0);
    expect(none.ci_high).toBeGreaterThan(0.4);
    expect(all.ci_high).toBe(1);
    expect(all.ci_low).toBeLessThan(0.6);
  });

  it('matches the Wilson interval and narrows as attempts grow', () => {
    // 8 of 16: centre 0.5, Wilson 95% half-width 0.2265 (to 3 places: 0.280..0.720).
    expect(codingRecord(8, 16)).toEqual({ passed: 8, attempted: 16, ci_low: 0.28, ci_high: 0.72 });
    const wide = codingRecord(5, 10);
    const narrow = codingRecord(500, 1000);
    expect(narrow.ci_high! - narrow.ci_low!).toBeLessThan(wide.ci_high! - wide.ci_low!);
  });
});
