import { codingRecord, NO_CODING, taskRecord, wilsonInterval } from '../../domain/sandbox/pass-rate';

const counts = (passed: number, attempted: number) => ({ ...NO_CODING, passed, attempted });

describe('codingRecord', () => {
  it('gives no interval without an attempt', () => {
    expect(codingRecord(NO_CODING)).toEqual({ ...NO_CODING, ci_low: null, ci_high: null });
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

describe('taskRecord', () => {
  it('gives pass@1 as the share of attempts passed, none without attempts', () => {
    expect(taskRecord('python/leap-year', counts(2, 3)).pass_at_1).toBe(0.667);
    expect(taskRecord('python/leap-year', NO_CODING).pass_at_1).toBeNull();
  });
});
