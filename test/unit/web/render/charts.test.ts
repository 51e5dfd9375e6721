import { eloHistoryChart, intervalChart } from '../../../../api/web/render/charts';

/** The text of every <text> element, in order. */
const labels = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!);

describe('eloHistoryChart', () => {
  it('labels its time axis with dates when the votes span days', () => {
    const start = Date.parse('2026-11-01T09:00:00Z');
    const points = Array.from({ length: 12 }, (_, i) => ({
      at: new Date(start + i * 2 * 86_400_000),
      elo: 1500 + i * 7,
    }));
    const svg = eloHistoryChart(points);
    const dates = labels(svg).filter((l) => /^\d{1,2} [A-Z][a-z]{2}$/.test(l));
    expect(dates.length).toBeGreaterThanOrEqual(3);
    expect(dates.length).toBeLessThanOrEqual(7);
    expect(dates.every((d) => / (Oct|Nov)$/.test(d))).toBe(true);
    expect(labels(svg)).toContain('UTC');
  });

  it('labels its time axis with times of day when the votes span hours', () => {
    const start = Date.parse('2026-11-23T08:10:00Z');
    const points = Array.from({ length: 6 }, (_, i) => ({ at: new Date(start + i * 45 * 60_000), elo: 1500 - i * 5 }));
    const times = labels(eloHistoryChart(points)).filter((l) => /^\d{2}:\d{2}$/.test(l));
    expect(times.length).toBeGreaterThanOrEqual(3);
    expect(times).toEqual([...times].sort());
  });

  it('labels its time axis with months when the votes span a year', () => {
    const start = Date.parse('2026-01-20T09:00:00Z');
    const points = Array.from({ length: 40 }, (_, i) => ({
      at: new Date(start + i * 9 * 86_400_000),
      elo: 1500 + (i % 5),
    }));
    const months = labels(eloHistoryChart(points)).filter((l) => /^[A-Z][a-z]{2} \d{4}$/.test(l));
    expect(months.length).toBeGreaterThanOrEqual(3);
    expect(months.length).toBeLessThanOrEqual(7);
  });

  it('draws votes cast in the same instant without dividing by zero', () => {
    const at = new Date('2026-11-23T08:10:00Z');
    const svg = eloHistoryChart([
      { at, elo: 1516 },
      { at, elo: 1530 },
    ]);
    expect(svg).not.toMatch(/NaN|Infinity/);
    expect(labels(svg).some((l) => /^\d{2}:\d{2}$/.test(l))).toBe(true);
  });
});

describe('intervalChart', () => {
  it('shortens a name too long for its margin, keeping the whole name in the tooltip', () => {
    const name = 'AnAgentWithARatherLongNameAndNoBreaksV3';
    const svg = intervalChart([{ label: name, rating: 1510, low: 1480, high: 1540 }]);
    const shown = labels(svg).find((l) => l.startsWith('AnAgent'))!;
    expect(shown.length).toBeLessThanOrEqual(22);
    expect(shown.endsWith('…')).toBe(true);
    expect(svg).toContain(`<title>${name}: 1510 (1480–1540)</title>`);
    expect(labels(intervalChart([{ label: 'careful-bot (v2)', rating: 1510, low: 1480, high: 1540 }]))).toContain(
      'careful-bot (v2)',
    );
  });
});

describe('intervalChart', () => {
  it('draws a provisional agent in grey and says so in its tooltip', () => {
    const svg = intervalChart([
      { label: 'ranked', rating: 1600, low: 1550, high: 1650 },
      { label: 'newcomer', rating: 1700, low: 1200, high: 2300, provisional: true },
    ]);
    const [ranked, newcomer] = svg.split('<g>').slice(1);
    expect(ranked).toContain('stroke="#2457c5"');
    expect(ranked).not.toContain('provisional');
    expect(newcomer).toContain('stroke="#8a929c"');
    expect(newcomer).toContain('<title>newcomer: 1700 (1200–2300), provisional</title>');
  });
});
