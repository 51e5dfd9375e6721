/** The bench's SVG chart: well-formed XML, one line and legend entry per series, log axes that skip what they cannot show. */
import { DOMParser } from '@xmldom/xmldom';
import { linearTicks, logTicks, renderChart } from '../../../bench/report/chart';
import type { ChartSpec } from '../../../bench/report/model';

const spec: ChartSpec = {
  title: 'Push dispatch overhead <against> offered load',
  xLabel: 'offered deliveries/s',
  yLabel: 'ms',
  logX: true,
  logY: true,
  series: [
    {
      name: 'arena p50',
      points: [
        [10, 12],
        [20, 15],
        [40, 40],
      ],
    },
    {
      name: 'arena p99',
      points: [
        [10, 30],
        [20, NaN],
        [40, 900],
      ],
      dashed: true,
    },
    {
      name: 'engine & co p50',
      points: [
        [10, 5],
        [20, 0],
        [40, 8],
      ],
      color: '#ff7f0e',
    },
  ],
};

function parse(svg: string) {
  const errors: string[] = [];
  const doc = new DOMParser({
    onError: (level, msg) => void (level !== 'warning' && errors.push(msg)),
  }).parseFromString(svg, 'image/svg+xml');
  return { doc, errors };
}

describe('renderChart', () => {
  it('is well-formed SVG with the title and labels escaped', () => {
    const svg = renderChart(spec);
    const { doc, errors } = parse(svg);
    expect(errors).toEqual([]);
    expect(doc.documentElement!.nodeName).toBe('svg');
    expect(svg).toContain('Push dispatch overhead &lt;against&gt; offered load');
    expect(svg).toContain('engine &amp; co p50');
  });

  it('draws one line and one legend entry per series, leaving out points a log axis cannot show', () => {
    const { doc } = parse(renderChart(spec));
    const lines = doc.getElementsByTagName('polyline');
    expect(lines.length).toBe(3);
    // arena p99 lost its NaN point, engine its zero: two points each.
    expect(lines[1]!.getAttribute('points')!.split(' ')).toHaveLength(2);
    expect(lines[2]!.getAttribute('points')!.split(' ')).toHaveLength(2);
    expect(lines[1]!.getAttribute('stroke-dasharray')).toBe('6 4');
    expect(lines[2]!.getAttribute('stroke')).toBe('#ff7f0e');
    expect(doc.getElementsByTagName('circle').length).toBe(3 + 2 + 2);
  });

  it('puts larger values higher up and further right', () => {
    const { doc } = parse(renderChart(spec));
    const points = doc
      .getElementsByTagName('polyline')[0]!
      .getAttribute('points')!
      .split(' ')
      .map((p) => p.split(',').map(Number));
    expect(points[1]![0]).toBeGreaterThan(points[0]![0]!);
    expect(points[2]![1]).toBeLessThan(points[0]![1]!);
  });

  it('says so when there is nothing to draw', () => {
    const svg = renderChart({ ...spec, series: [{ name: 'empty', points: [[1, NaN]] }] });
    expect(parse(svg).errors).toEqual([]);
    expect(svg).toContain('no data');
  });
});

describe('ticks', () => {
  it('puts log ticks on 1, 2 and 5 of each decade', () => {
    expect(logTicks(1, 100)).toEqual([1, 2, 5, 10, 20, 50, 100]);
    expect(logTicks(10, 1000).slice(0, 3)).toEqual([10, 20, 50]);
  });

  it('puts linear ticks on round steps', () => {
    expect(linearTicks(0, 100, 5)).toEqual([0, 20, 40, 60, 80, 100]);
    expect(linearTicks(0, 7, 6)).toEqual([0, 2, 4, 6, 8].filter((v) => v <= 7.000001));
  });
});
