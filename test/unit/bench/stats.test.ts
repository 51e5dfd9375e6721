/** The bench's percentile and summary arithmetic: nearest rank, no interpolation, NaN for nothing measured. */
import { percentile, ratePerSecond, round, summarize } from '../../../bench/lib/stats';

describe('percentile', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('is the nearest rank: the smallest sample with at least p% at or below it', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile([10, 20, 30, 40], 50)).toBe(20);
    expect(percentile([10, 20, 30, 40], 51)).toBe(30);
  });

  it('never interpolates, so every figure is a latency that happened', () => {
    expect(percentile([1, 1000], 50)).toBe(1);
    expect(percentile([1, 1000], 99)).toBe(1000);
  });

  it('takes the extremes at 0 and 100, and NaN from no samples', () => {
    expect(percentile(hundred, 0)).toBe(1);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('summarize', () => {
  it('sorts, and leaves out what was never measured (NaN, Infinity)', () => {
    const s = summarize([5, NaN, 1, 3, Infinity, 2, 4]);
    expect(s).toEqual({ count: 5, min: 1, mean: 3, p1: 1, p50: 3, p95: 5, p99: 5, max: 5 });
  });

  it('reports NaN everywhere for no samples', () => {
    const s = summarize([]);
    expect(s.count).toBe(0);
    expect(s.p99).toBeNaN();
  });

  it('keeps a single slow sample out of p50 but in p99 of a hundred', () => {
    const s = summarize([...Array(99).fill(10), 500]);
    expect(s.p50).toBe(10);
    expect(s.p99).toBe(10);
    expect(s.max).toBe(500);
    expect(summarize([...Array(98).fill(10), 500, 500]).p99).toBe(500);
  });
});

describe('ratePerSecond', () => {
  it('counts events over the span from the first start to the last end', () => {
    expect(ratePerSecond(300, 1_000, 4_000)).toBe(100);
  });

  it('is NaN with nothing to count or no span', () => {
    expect(ratePerSecond(0, 0, 1000)).toBeNaN();
    expect(ratePerSecond(5, 1000, 1000)).toBeNaN();
  });
});

describe('round', () => {
  it('keeps three significant digits below 100 and whole numbers above', () => {
    expect(round(0.012345)).toBe(0.0123);
    expect(round(12.345)).toBe(12.3);
    expect(round(123.6)).toBe(124);
    expect(round(NaN)).toBeNaN();
  });
});
