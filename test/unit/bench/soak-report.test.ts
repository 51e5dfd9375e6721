/** The soak's figures from raw samples: the memory slope, the first and last fifths, and the chart. */
import { latencyRows, slopePerHour, soakChart, type SoakResult } from '../../../bench/soak/report';

describe('soak report', () => {
  it('fits a line and reports its slope per hour', () => {
    // 1 MB a minute, with noise that leaves the fit where it is.
    const noise = [0.5, -0.5, -0.5, 0.5];
    const points = noise.map((n, m): [number, number] => [m * 60_000, 100 + m + n]);
    expect(slopePerHour(points)).toBeCloseTo(60, 0);
    expect(slopePerHour([[0, 1]])).toBeNaN();
    expect(
      slopePerHour([
        [0, 1],
        [1, Number.NaN],
        [60_000, 2],
      ]),
    ).toBeCloseTo(60);
  });

  it('reads p50 and p99 of 2xx answers in the first and last fifth, and counts the others', () => {
    const loadMs = 100_000;
    const rows = latencyRows(
      [
        { kind: 'feed', at: 1_000, ms: 10, status: 200 },
        { kind: 'feed', at: 2_000, ms: 30, status: 200 },
        { kind: 'feed', at: 50_000, ms: 999, status: 200 },
        { kind: 'feed', at: 60_000, ms: 5, status: 503 },
        { kind: 'feed', at: 90_000, ms: 20, status: 200 },
        { kind: 'feed', at: 95_000, ms: 7, status: 0 },
      ],
      loadMs,
    );
    expect(rows).toEqual([
      {
        kind: 'feed',
        first: { count: 2, p50: 10, p99: 30 },
        last: { count: 1, p50: 20, p99: 20 },
        unavailable: 2,
        total: 6,
      },
    ]);
  });

  it('draws memory and latency with the faults marked', () => {
    const result = {
      faults: [{ kind: 'postgres-stop', startMs: 30_000, endMs: 50_000 }],
      memory: {
        samples: [
          { t: 0, rssMb: { api: 100 }, heapMb: { api: 40 } },
          { t: 60_000, rssMb: { api: 110 }, heapMb: { api: 42 } },
        ],
      },
      latencySeries: [{ t: 10_000, p50: { feed: 12 } }],
    } as unknown as SoakResult;
    const svg = soakChart(result, 120_000);
    expect(svg).toContain('<svg');
    expect(svg).toContain('postgres-stop');
    expect(svg).toContain('api RSS');
    expect(svg).toContain('feed');
  });
});
