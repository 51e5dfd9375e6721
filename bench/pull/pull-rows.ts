/** The pull figure's report rows: the arena's side against the bare server's, with the targets. */
import type { BenchProfile } from '../config';
import { round } from '../lib/stats';
import { figure, type FigureRow } from '../report/model';
import type { PullSide } from './pull-figure';

export function pullRows(p: BenchProfile['pull'], arena: PullSide, bare: PullSide): FigureRow[] {
  const group = 'Pull';
  const note = `${p.polls} idle long-polls`;
  const baselineName = 'bare Node http + LISTEN/NOTIFY';
  return [
    figure({
      group,
      name: 'API RSS while idle',
      unit: 'MB',
      value: round(arena.idleRssMb),
      baselineName,
      baseline: round(bare.idleRssMb),
      better: 'lower',
      target: '<= 250 MB',
      met: arena.idleRssMb <= 250,
      note,
    }),
    figure({
      group,
      name: 'API CPU while idle',
      unit: '% of a core',
      value: round(arena.idleCpuPercent),
      baselineName,
      baseline: round(bare.idleCpuPercent),
      better: 'lower',
      note,
    }),
    figure({
      group,
      name: 'wake latency p50',
      unit: 'ms',
      value: round(arena.wake.p50),
      baselineName,
      baseline: round(bare.wake.p50),
      better: 'lower',
      note: `${p.wakes} wakes at ${p.wakesPerSecond}/s`,
    }),
    figure({
      group,
      name: 'wake latency p99',
      unit: 'ms',
      value: round(arena.wake.p99),
      baselineName,
      baseline: round(bare.wake.p99),
      better: 'lower',
      target: '<= 3x bare',
      met: arena.wake.p99 <= 3 * bare.wake.p99,
      note: `${p.wakes} wakes at ${p.wakesPerSecond}/s`,
    }),
  ];
}
