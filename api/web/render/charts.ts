/** Server-side SVG charts: Bradley-Terry ratings with their intervals, and an agent's Elo history. */
import { escapeHtml } from './html';

export interface IntervalRow {
  label: string;
  rating: number;
  low: number;
  high: number;
}

const WIDTH = 640;
const round = (n: number) => Math.round(n * 10) / 10;

function ticks(min: number, max: number, count = 5): number[] {
  const step = Math.max(1, Math.ceil((max - min) / count / 25) * 25);
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max; v += step) out.push(v);
  return out;
}

/** Rows of dots (rating) on lines (95% interval), with the 1500 mean marked. */
export function intervalChart(rows: readonly IntervalRow[]): string {
  if (rows.length === 0) return emptyChart('No ratings yet');
  const rowHeight = 28;
  const left = 150;
  const right = 20;
  const top = 10;
  const height = top + rows.length * rowHeight + 30;
  const min = Math.min(1500, ...rows.map((r) => r.low)) - 25;
  const max = Math.max(1500, ...rows.map((r) => r.high)) + 25;
  const x = (v: number) => round(left + ((v - min) / (max - min)) * (WIDTH - left - right));
  const axisY = top + rows.length * rowHeight + 5;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="100%" viewBox="0 0 ${WIDTH} ${height}" aria-labelledby="ci-title">`,
    `<title id="ci-title">Bradley-Terry ratings with 95% intervals</title>`,
    `<line x1="${x(1500)}" y1="${top}" x2="${x(1500)}" y2="${axisY}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<line x1="${left}" y1="${axisY}" x2="${WIDTH - right}" y2="${axisY}" stroke="#666"/>`,
    ...ticks(min, max).map((t) => `<text x="${x(t)}" y="${axisY + 18}" font-size="11" text-anchor="middle" fill="#555">${t}</text>`),
  ];
  rows.forEach((r, i) => {
    const y = top + i * rowHeight + rowHeight / 2;
    parts.push(
      `<g><text x="${left - 8}" y="${y + 4}" font-size="12" text-anchor="end">${escapeHtml(r.label)}</text>`,
      `<line x1="${x(r.low)}" y1="${y}" x2="${x(r.high)}" y2="${y}" stroke="#2457c5" stroke-width="2"/>`,
      `<circle cx="${x(r.rating)}" cy="${y}" r="4" fill="#2457c5"><title>${escapeHtml(r.label)}: ${Math.round(r.rating)} (${Math.round(r.low)}–${Math.round(r.high)})</title></circle></g>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

/** Elo after each vote, as a line. */
export function eloHistoryChart(points: ReadonlyArray<{ at: string; elo: number }>): string {
  if (points.length === 0) return emptyChart('No votes yet');
  const height = 180;
  const [left, right, top, bottom] = [50, 15, 10, 25];
  const elos = [1500, ...points.map((p) => p.elo)];
  const min = Math.min(...elos) - 10;
  const max = Math.max(...elos) + 10;
  const x = (i: number) => round(left + (i / Math.max(1, points.length)) * (WIDTH - left - right));
  const y = (v: number) => round(top + (1 - (v - min) / (max - min)) * (height - top - bottom));
  const path = [`M${x(0)},${y(1500)}`, ...points.map((p, i) => `L${x(i + 1)},${y(p.elo)}`)].join(' ');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="100%" viewBox="0 0 ${WIDTH} ${height}" aria-labelledby="elo-title">`,
    `<title id="elo-title">Elo after each of ${points.length} vote${points.length === 1 ? '' : 's'}</title>`,
    `<line x1="${left}" y1="${height - bottom}" x2="${WIDTH - right}" y2="${height - bottom}" stroke="#666"/>`,
    ...ticks(min, max, 4).map((t) => `<text x="${left - 6}" y="${y(t) + 4}" font-size="11" text-anchor="end" fill="#555">${t}</text>`),
    `<path d="${path}" fill="none" stroke="#2457c5" stroke-width="2"/>`,
    '</svg>',
  ].join('');
}

function emptyChart(text: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="100%" viewBox="0 0 ${WIDTH} 40"><title>${escapeHtml(text)}</title><text x="10" y="25" font-size="13" fill="#555">${escapeHtml(text)}</text></svg>`;
}
