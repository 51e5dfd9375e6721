/** What a benchmark run reports: figures, each with the baseline measured in the same run and the ratio to it. */

export type Better = 'higher' | 'lower';

export interface FigureRow {
  group: string;
  name: string;
  unit: string;
  value: number;
  baselineName: string;
  baseline: number;
  /** value / baseline, whichever way is better. */
  ratio: number;
  better: Better;
  target?: string;
  met?: boolean;
  note?: string;
}

export interface ChartSeries {
  name: string;
  points: Array<[number, number]>;
  dashed?: boolean;
  color?: string;
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  /** Log scale on y (latencies span from a millisecond to seconds near saturation). */
  logY?: boolean;
  /** Log scale on x (offered rates rise geometrically). */
  logX?: boolean;
}

export function figure(row: Omit<FigureRow, 'ratio'>): FigureRow {
  return { ...row, ratio: row.value / row.baseline };
}
