/** The bench's figures table: numbers, ratios, escaping, and the same rows in Markdown and on the console. */
import { figure, type FigureRow } from '../../../bench/report/model';
import { figuresMarkdown, figuresText, formatNumber, formatRatio, markdownTable } from '../../../bench/report/table';

const rows: FigureRow[] = [
  figure({
    group: 'Push',
    name: 'sustained deliveries/s',
    unit: '/s',
    value: 150,
    baselineName: '(b) engine',
    baseline: 200,
    better: 'higher',
    target: '>= 0.6x (b)',
    met: true,
  }),
  figure({
    group: 'Pull',
    name: 'wake latency p99',
    unit: 'ms',
    value: 12.5,
    baselineName: 'bare | notify',
    baseline: 2.5,
    better: 'lower',
    target: '<= 15 ms',
    met: true,
    note: '300 wakes',
  }),
  figure({
    group: 'Pull',
    name: 'CPU while idle',
    unit: '% of a core',
    value: 3,
    baselineName: 'bare',
    baseline: 0,
    better: 'lower',
  }),
];

describe('formatting', () => {
  it('shows three significant digits, whole numbers from 100, n/a for nothing measured', () => {
    expect(formatNumber(0.012345)).toBe('0.0123');
    expect(formatNumber(12.345)).toBe('12.3');
    expect(formatNumber(1234.5)).toBe('1235');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(NaN)).toBe('n/a');
  });

  it('writes ratios with an x, and n/a for a zero baseline', () => {
    expect(formatRatio(0.75)).toBe('0.75x');
    expect(formatRatio(0.0034)).toBe('0.0034x');
    expect(formatRatio(0)).toBe('0.00x');
    expect(formatRatio(5)).toBe('5.00x');
    expect(formatRatio(123.4)).toBe('123x');
    expect(formatRatio(Infinity)).toBe('n/a');
  });
});

describe('figure', () => {
  it('computes the ratio as arena / baseline whichever way is better', () => {
    expect(rows[0]!.ratio).toBe(0.75);
    expect(rows[1]!.ratio).toBe(5);
  });
});

describe('markdownTable', () => {
  it('has a header, a separator and one line per row, with pipes escaped', () => {
    expect(markdownTable(['a', 'b'], [['1', 'x|y']])).toBe('| a | b |\n| --- | --- |\n| 1 | x\\|y |');
  });
});

describe('figuresMarkdown', () => {
  it('lists every figure with its baseline, ratio, direction and target', () => {
    const lines = figuresMarkdown(rows).split('\n');
    expect(lines).toHaveLength(2 + rows.length);
    expect(lines[0]).toBe('| Figure | Arena | Baseline | Baseline value | Ratio | Better | Target | Met |');
    expect(lines[2]).toBe(
      '| Push: sustained deliveries/s | 150/s | (b) engine | 200/s | 0.75x | higher | >= 0.6x (b) | yes |',
    );
    expect(lines[3]).toBe(
      '| Pull: wake latency p99 (300 wakes) | 12.5 ms | bare \\| notify | 2.5 ms | 5.00x | lower | <= 15 ms | yes |',
    );
    expect(lines[4]).toContain('| n/a | lower |  |  |');
  });
});

describe('figuresText', () => {
  it('pads every column to its widest cell', () => {
    const lines = figuresText(rows).split('\n');
    expect(lines).toHaveLength(2 + rows.length);
    const ratioColumn = lines[0]!.indexOf('Ratio');
    expect(lines[2]!.slice(ratioColumn, ratioColumn + 5)).toBe('0.75x');
    expect(lines[3]!.slice(ratioColumn, ratioColumn + 5)).toBe('5.00x');
    expect(lines[1]).toMatch(/^-+( +-+)+$/);
  });
});
