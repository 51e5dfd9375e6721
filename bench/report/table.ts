/** The figures as a Markdown table and as aligned console text; pure, so the unit tests pin them down. */
import type { FigureRow } from './model';

/** Three significant digits below 100, whole numbers above; 'n/a' for what could not be measured. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Math.abs(value) >= 100) return String(Math.round(value));
  if (value === 0) return '0';
  return String(Number(value.toPrecision(3)));
}

export function formatRatio(ratio: number): string {
  if (!Number.isFinite(ratio)) return 'n/a';
  // Below 0.01 two decimals would read 0.00x: two significant digits instead.
  if (ratio > 0 && ratio < 0.01) return `${Number(ratio.toPrecision(2))}x`;
  return `${ratio >= 10 ? ratio.toFixed(0) : ratio.toFixed(2)}x`;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function markdownTable(headers: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.map(escapeCell).join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

const HEADERS = ['Figure', 'Arena', 'Baseline', 'Baseline value', 'Ratio', 'Better', 'Target', 'Met'];

function cells(row: FigureRow): string[] {
  const unit = row.unit === '/s' ? '/s' : ` ${row.unit}`;
  return [
    `${row.group}: ${row.name}${row.note ? ` (${row.note})` : ''}`,
    `${formatNumber(row.value)}${unit}`,
    row.baselineName,
    `${formatNumber(row.baseline)}${unit}`,
    formatRatio(row.ratio),
    row.better,
    row.target ?? '',
    row.met === undefined ? '' : row.met ? 'yes' : 'no',
  ];
}

export function figuresMarkdown(rows: FigureRow[]): string {
  return markdownTable(HEADERS, rows.map(cells));
}

/** The same table for a terminal: columns padded to their widest cell. */
export function figuresText(rows: FigureRow[]): string {
  const all = [HEADERS, ...rows.map(cells)];
  // cells() gives one cell per header.
  const widths = HEADERS.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  '), ...all.slice(1).map(line)].join('\n');
}
