/** Server-side SVG charts: Bradley-Terry ratings with their intervals, and an agent's Elo history over time. */
import { INITIAL_ELO } from '../../../domain/ratings/elo';
import { escapeHtml } from './html';
import { timeTicks } from './time-axis';

export interface IntervalRow {
  label: string;
  rating: number;
  low: number;
  high: number;
  /** Too few votes for a rank: drawn in grey, so its wide interval does not read as a claim. */
  provisional?: boolean;
}

const WIDTH = 640;
const round = (n: number) => Math.round(n * 10) / 10;

// The longest label the interval chart shows whole; longer ones are cut with an ellipsis.
const LABEL_CHARACTERS = 22;
/** The widest left margin the labels may take of the chart's 640; a wider label is squeezed into it. */
const MAX_LABEL_PX = 220;

/**
 * A label's width at 12 px, estimated from the widest of the sans fonts browsers use (it is measured
 * only in the browser): generous, so the margin it sets never cuts a label.
 */
function labelWidth(label: string): number {
  let px = 0;
  for (const c of label) {
    if (/[MWmw@%]/.test(c)) px += 12;
    else if (/[A-Z]/.test(c)) px += 9;
    else if (/[iljtfr .,:;'!|()[\]\-]/.test(c)) px += 4.5;
    else px += 7.5;
  }
  return Math.ceil(px);
}
function shortLabel(label: string): string {
  // By code points, so an emoji is never cut in half.
  const characters = [...label];
  return characters.length <= LABEL_CHARACTERS ? label : `${characters.slice(0, LABEL_CHARACTERS - 1).join('')}…`;
}

function ticks(min: number, max: number, count = 5): number[] {
  const step = Math.max(1, Math.ceil((max - min) / count / 25) * 25);
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max; v += step) out.push(v);
  return out;
}

/** Rows of dots (rating) on lines (95% interval), with the mean (the starting Elo, where Bradley-Terry is anchored) marked. */
export function intervalChart(rows: readonly IntervalRow[]): string {
  if (rows.length === 0) return emptyChart('No ratings yet');
  const rowHeight = 28;
  // Room for the widest label drawn, so none is cut at the chart's edge; one wider than the most
  // the margin may take is squeezed to fit (textLength).
  const widest = Math.max(...rows.map((r) => labelWidth(shortLabel(r.label))));
  const labelRoom = Math.min(MAX_LABEL_PX, Math.max(64, widest));
  const left = labelRoom + 16;
  const right = 20;
  const top = 10;
  const height = top + rows.length * rowHeight + 30;
  const min = Math.min(INITIAL_ELO, ...rows.map((r) => r.low)) - 25;
  const max = Math.max(INITIAL_ELO, ...rows.map((r) => r.high)) + 25;
  const x = (v: number) => round(left + ((v - min) / (max - min)) * (WIDTH - left - right));
  const axisY = top + rows.length * rowHeight + 5;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="100%" viewBox="0 0 ${WIDTH} ${height}" aria-labelledby="ci-title">`,
    `<title id="ci-title">Bradley-Terry ratings with 95% intervals</title>`,
    `<line x1="${x(INITIAL_ELO)}" y1="${top}" x2="${x(INITIAL_ELO)}" y2="${axisY}" stroke="#999" stroke-dasharray="4 3"/>`,
    `<line x1="${left}" y1="${axisY}" x2="${WIDTH - right}" y2="${axisY}" stroke="#666"/>`,
    ...ticks(min, max).map(
      (t) => `<text x="${x(t)}" y="${axisY + 18}" font-size="11" text-anchor="middle" fill="#555">${t}</text>`,
    ),
  ];
  rows.forEach((r, i) => {
    const y = top + i * rowHeight + rowHeight / 2;
    const colour = r.provisional ? '#8a929c' : '#2457c5';
    const note = r.provisional ? ', provisional' : '';
    parts.push(
      `<g><text x="${left - 8}" y="${y + 4}" font-size="12" text-anchor="end"${labelWidth(shortLabel(r.label)) > labelRoom ? ` textLength="${labelRoom}" lengthAdjust="spacingAndGlyphs"` : ''}>${escapeHtml(shortLabel(r.label))}</text>`,
      `<line x1="${x(r.low)}" y1="${y}" x2="${x(r.high)}" y2="${y}" stroke="${colour}" stroke-width="2"/>`,
      `<circle cx="${x(r.rating)}" cy="${y}" r="4" fill="${colour}"><title>${escapeHtml(r.label)}: ${Math.round(r.rating)} (${Math.round(r.low)}–${Math.round(r.high)})${note}</title></circle></g>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}

/** Elo after each vote, as steps over time (UTC) from the starting Elo. */
export function eloHistoryChart(points: ReadonlyArray<{ at: Date; elo: number }>): string {
  if (points.length === 0) return emptyChart('No votes yet');
  const height = 180;
  const [left, right, top, bottom] = [50, 15, 10, 25];
  const elos = [INITIAL_ELO, ...points.map((p) => p.elo)];
  const min = Math.min(...elos) - 10;
  const max = Math.max(...elos) + 10;
  const [from, to] = timeSpan(points.map((p) => p.at.getTime()));
  const x = (ms: number) => round(left + ((ms - from) / (to - from)) * (WIDTH - left - right));
  const y = (v: number) => round(top + (1 - (v - min) / (max - min)) * (height - top - bottom));
  // Elo holds between votes, so each vote is a step.
  const path = [
    `M${x(from)},${y(INITIAL_ELO)}`,
    ...points.map((p) => `H${x(p.at.getTime())} V${y(p.elo)}`),
    `H${x(to)}`,
  ].join(' ');
  const axisY = height - bottom;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="100%" viewBox="0 0 ${WIDTH} ${height}" aria-labelledby="elo-title">`,
    `<title id="elo-title">Elo after each of ${points.length} vote${points.length === 1 ? '' : 's'}, over time (UTC)</title>`,
    `<line x1="${left}" y1="${axisY}" x2="${WIDTH - right}" y2="${axisY}" stroke="#666"/>`,
    ...ticks(min, max, 4).map(
      (t) => `<text x="${left - 6}" y="${y(t) + 4}" font-size="11" text-anchor="end" fill="#555">${t}</text>`,
    ),
    // Ticks close to the ends would run into the corner's "UTC" or off the chart.
    ...timeTicks(from, to)
      .filter((t) => x(t.at) >= left + 16 && x(t.at) <= WIDTH - right - 16)
      .map(
        (t) =>
          `<line x1="${x(t.at)}" y1="${axisY}" x2="${x(t.at)}" y2="${axisY + 4}" stroke="#666"/>` +
          `<text x="${x(t.at)}" y="${axisY + 16}" font-size="11" text-anchor="middle" fill="#555">${escapeHtml(t.label)}</text>`,
      ),
    `<text x="${left - 6}" y="${axisY + 16}" font-size="11" text-anchor="end" fill="#555">UTC</text>`,
    `<path d="${path}" fill="none" stroke="#2457c5" stroke-width="2"/>`,
    '</svg>',
  ].join('');
}

/** The chart's time range: the votes' own, at least ten minutes wide, with a little room at both ends. */
function timeSpan(times: readonly number[]): [number, number] {
  let [from, to] = [Math.min(...times), Math.max(...times)];
  const narrowest = 10 * 60_000;
  if (to - from < narrowest) {
    const middle = (from + to) / 2;
    [from, to] = [middle - narrowest / 2, middle + narrowest / 2];
  }
  const margin = (to - from) * 0.04;
  return [from - margin, to + margin];
}

function emptyChart(text: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" width="100%" viewBox="0 0 ${WIDTH} 40"><title>${escapeHtml(text)}</title><text x="10" y="25" font-size="13" fill="#555">${escapeHtml(text)}</text></svg>`;
}
