/** An SVG line chart (latency percentiles against offered load) with no dependencies; pure, so it is unit-tested. */
import type { ChartSpec } from './model';

const WIDTH = 820;
const HEIGHT = 460;
const MARGIN = { left: 70, right: 200, top: 40, bottom: 56 };
const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

interface Axis {
  toPixel(v: number): number;
  ticks: number[];
}

/** Decades and their 2x and 5x steps, within [min, max]. */
export function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
    for (const m of [1, 2, 5]) {
      const v = m * 10 ** e;
      if (v >= min * 0.999 && v <= max * 1.001) ticks.push(v);
    }
  }
  return ticks;
}

/** About `count` round steps (1, 2 or 5 times a power of ten) covering [min, max]. */
export function linearTicks(min: number, max: number, count = 6): number[] {
  if (max <= min) return [min];
  const raw = (max - min) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

function axis(values: number[], log: boolean, from: number, to: number): Axis {
  let min = Math.min(...values);
  let max = Math.max(...values);
  if (log) {
    min = 10 ** Math.floor(Math.log10(min));
    max = 10 ** Math.ceil(Math.log10(max));
    const span = Math.log10(max) - Math.log10(min) || 1;
    return {
      toPixel: (v) => from + ((Math.log10(v) - Math.log10(min)) / span) * (to - from),
      ticks: logTicks(min, max),
    };
  }
  min = Math.min(0, min);
  const ticks = linearTicks(min, max === min ? min + 1 : max);
  max = Math.max(max, ticks.at(-1) ?? max);
  const span = max - min || 1;
  return { toPixel: (v) => from + ((v - min) / span) * (to - from), ticks };
}

function label(v: number): string {
  if (v >= 1000) return `${Number((v / 1000).toPrecision(3))}k`;
  return String(Number(v.toPrecision(3)));
}

export function renderChart(spec: ChartSpec): string {
  const usable = spec.series.map((s) => ({
    ...s,
    points: s.points.filter(
      ([x, y]) => Number.isFinite(x) && Number.isFinite(y) && (!spec.logY || y > 0) && (!spec.logX || x > 0),
    ),
  }));
  const xs = usable.flatMap((s) => s.points.map((p) => p[0]));
  const ys = usable.flatMap((s) => s.points.map((p) => p[1]));
  const plot = { x0: MARGIN.left, x1: WIDTH - MARGIN.right, y0: HEIGHT - MARGIN.bottom, y1: MARGIN.top };
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="#ffffff"/>`,
    `<text x="${WIDTH / 2}" y="22" text-anchor="middle" font-size="15" font-weight="bold">${escapeXml(spec.title)}</text>`,
  ];
  if (xs.length === 0) {
    out.push(`<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle">no data</text>`, '</svg>');
    return out.join('\n');
  }
  const x = axis(xs, spec.logX ?? false, plot.x0, plot.x1);
  const y = axis(ys, spec.logY ?? false, plot.y0, plot.y1);
  for (const t of y.ticks) {
    const py = y.toPixel(t).toFixed(1);
    out.push(`<line x1="${plot.x0}" y1="${py}" x2="${plot.x1}" y2="${py}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${plot.x0 - 6}" y="${py}" text-anchor="end" dominant-baseline="middle">${label(t)}</text>`);
  }
  for (const t of x.ticks) {
    const px = x.toPixel(t).toFixed(1);
    out.push(`<line x1="${px}" y1="${plot.y0}" x2="${px}" y2="${plot.y1}" stroke="#f0f0f0"/>`);
    out.push(`<text x="${px}" y="${plot.y0 + 16}" text-anchor="middle">${label(t)}</text>`);
  }
  out.push(
    `<rect x="${plot.x0}" y="${plot.y1}" width="${plot.x1 - plot.x0}" height="${plot.y0 - plot.y1}" fill="none" stroke="#333"/>`,
  );
  out.push(
    `<text x="${(plot.x0 + plot.x1) / 2}" y="${HEIGHT - 14}" text-anchor="middle">${escapeXml(spec.xLabel)}</text>`,
  );
  out.push(
    `<text x="16" y="${(plot.y0 + plot.y1) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(plot.y0 + plot.y1) / 2})">${escapeXml(spec.yLabel)}${spec.logY ? ' (log)' : ''}</text>`,
  );
  usable.forEach((s, i) => {
    const color = s.color ?? PALETTE[i % PALETTE.length];
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    const pts = [...s.points]
      .sort((a, b) => a[0] - b[0])
      .map(([px, py]) => `${x.toPixel(px).toFixed(1)},${y.toPixel(py).toFixed(1)}`);
    if (pts.length > 1)
      out.push(`<polyline points="${pts.join(' ')}" fill="none" stroke="${color}" stroke-width="2"${dash}/>`);
    for (const p of pts) {
      const [cx, cy] = p.split(',');
      out.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${color}"/>`);
    }
    const ly = MARGIN.top + 10 + i * 20;
    out.push(
      `<line x1="${plot.x1 + 14}" y1="${ly}" x2="${plot.x1 + 40}" y2="${ly}" stroke="${color}" stroke-width="2"${dash}/>`,
    );
    out.push(`<text x="${plot.x1 + 46}" y="${ly}" dominant-baseline="middle">${escapeXml(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n');
}
