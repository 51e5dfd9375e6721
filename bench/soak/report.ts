/** The soak's figures from its raw samples, and its report: JSON, Markdown and one SVG (memory and latency over time, faults marked). Pure but for the writing. */
import fs from 'node:fs/promises';
import path from 'node:path';
import { linearTicks, logTicks } from '../report/chart';
import { markdownTable } from '../report/table';
import { percentile, round } from '../lib/stats';
import type { RequestSample } from './agents';
import type { VoteRow } from './judges';
import { SETTLE_VERDICTS, type SettleRecord } from './settle';

export interface FaultRecord {
  kind: 'worker-kill' | 'api-restart' | 'postgres-stop' | 'temporal-stop';
  /** ms since the load began: when the fault was injected, and when everything was back. */
  startMs: number;
  endMs: number;
  error?: string;
}

export interface MemorySample {
  /** ms since the load began. */
  t: number;
  /** Resident set size per process, MB (NaN while a process is down). */
  rssMb: Record<string, number>;
  /** V8 heap used per process, MB, from its /metrics. */
  heapMb: Record<string, number>;
}

export interface DeliveryRow {
  kind: string;
  started: number;
  recordedOnce: number;
  lost: number;
  recordedTwice: number;
  sentTwice: number;
  /** Rows the soak never got a 202 for (the answer was lost to a timeout or restart), and how many of them are still pending. */
  unacknowledged: number;
  outcomes: Record<string, number>;
}

export interface LatencyRow {
  kind: string;
  first: { count: number; p50: number; p99: number };
  last: { count: number; p50: number; p99: number };
  /** Answers that were not 2xx: 503s and refused or timed-out connections included. */
  unavailable: number;
  total: number;
}

export interface SoakResult {
  run: {
    startedAt: string;
    finishedAt: string;
    minutes: number;
    commit: string;
    dirty: boolean;
    machine: { cpus: number; cpuModel: string; node: string };
    leftOut: string[];
  };
  deliveries: DeliveryRow[];
  /** Each duplicate found: a session written twice, or a push prompt an agent got twice. */
  duplicates: string[];
  /** Each delivery open once the load stopped, followed through its workflow (settle.ts). */
  settle: SettleRecord;
  votes: VoteRow;
  faults: FaultRecord[];
  memory: {
    samples: MemorySample[];
    /** MB per hour of a line fitted to the second half of the samples, per process. */
    rssSlope: Record<string, number>;
    heapSlope: Record<string, number>;
  };
  latency: LatencyRow[];
  /** p50 per kind per time bucket, for the chart. */
  latencySeries: Array<{ t: number; p50: Record<string, number> }>;
  storage: {
    deliveries: number;
    databaseMb: number;
    temporalMb: number;
    dataFolderMb: number;
    perThousand: { databaseMb: number; temporalMb: number; dataFolderMb: number };
    /** Each table with its indexes and rows, largest first. */
    tables: Array<{ table: string; rows: number; mb: number; perThousandMb: number }>;
    /** The data folder's top-level entries (the servers' data and logs, the soak's process logs). */
    folders: Array<{ entry: string; mb: number; perThousandMb: number }>;
  };
}

/** Least-squares slope of y against t (ms), per hour; NaN with fewer than two points. */
export function slopePerHour(points: Array<[number, number]>): number {
  const finite = points.filter(([t, y]) => Number.isFinite(t) && Number.isFinite(y));
  if (finite.length < 2) return Number.NaN;
  const n = finite.length;
  const mt = finite.reduce((a, [t]) => a + t, 0) / n;
  const my = finite.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [t, y] of finite) {
    num += (t - mt) * (y - my);
    den += (t - mt) ** 2;
  }
  return den === 0 ? Number.NaN : (num / den) * 3_600_000;
}

/** Slopes per process over the second half of the run: the first half holds start-up and warm-up growth. */
export function secondHalfSlopes(
  samples: MemorySample[],
  field: 'rssMb' | 'heapMb',
  loadMs: number,
): Record<string, number> {
  const late = samples.filter((s) => s.t >= loadMs / 2);
  const names = new Set(late.flatMap((s) => Object.keys(s[field])));
  const out: Record<string, number> = {};
  for (const name of names) out[name] = round(slopePerHour(late.map((s) => [s.t, s[field][name] ?? NaN])));
  return out;
}

/** p50 and p99 of each kind's successful requests started in the first and in the last fifth of the load. */
export function latencyRows(samples: RequestSample[], loadMs: number): LatencyRow[] {
  const kinds = [...new Set(samples.map((s) => s.kind))].sort();
  const fifth = loadMs / 5;
  const summary = (list: RequestSample[]) => {
    const sorted = list.map((s) => s.ms).sort((a, b) => a - b);
    return { count: sorted.length, p50: round(percentile(sorted, 50)), p99: round(percentile(sorted, 99)) };
  };
  return kinds.map((kind) => {
    const all = samples.filter((s) => s.kind === kind);
    const ok = all.filter((s) => s.status >= 200 && s.status < 300);
    return {
      kind,
      first: summary(ok.filter((s) => s.at < fifth)),
      last: summary(ok.filter((s) => s.at >= loadMs - fifth && s.at <= loadMs)),
      unavailable: all.length - ok.length,
      total: all.length,
    };
  });
}

/** p50 of each kind's successful requests per bucket of time. */
export function latencySeries(samples: RequestSample[], bucketMs: number): SoakResult['latencySeries'] {
  const buckets = new Map<number, Map<string, number[]>>();
  for (const s of samples) {
    if (s.status < 200 || s.status >= 300) continue;
    const b = Math.floor(s.at / bucketMs);
    const kinds = buckets.get(b) ?? new Map<string, number[]>();
    const list = kinds.get(s.kind) ?? [];
    list.push(s.ms);
    kinds.set(s.kind, list);
    buckets.set(b, kinds);
  }
  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([b, kinds]) => ({
      t: (b + 0.5) * bucketMs,
      p50: Object.fromEntries(
        [...kinds].map(([kind, list]) => [
          kind,
          round(
            percentile(
              [...list].sort((x, y) => x - y),
              50,
            ),
          ),
        ]),
      ),
    }));
}

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
const FAULT_COLOURS: Record<FaultRecord['kind'], string> = {
  'worker-kill': '#d62728',
  'api-restart': '#ff7f0e',
  'postgres-stop': '#1f77b4',
  'temporal-stop': '#9467bd',
};

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

interface Panel {
  title: string;
  yLabel: string;
  log: boolean;
  series: Array<{ name: string; points: Array<[number, number]> }>;
}

/** Two panels over the same time axis (minutes): memory, then latency; each fault a shaded band. */
export function soakChart(result: SoakResult, loadMs: number): string {
  const width = 900;
  const panelHeight = 300;
  const margin = { left: 70, right: 190, top: 40, bottom: 40 };
  const plotWidth = width - margin.left - margin.right;
  const minutes = loadMs / 60_000;
  const xTicks = linearTicks(0, minutes);
  const xMax = Math.max(minutes, xTicks.at(-1) ?? minutes);
  const x = (tMs: number) => margin.left + (tMs / 60_000 / xMax) * plotWidth;
  const names = Object.keys(result.memory.samples[0]?.rssMb ?? {});
  const heapNames = [...new Set(result.memory.samples.flatMap((s) => Object.keys(s.heapMb)))];
  const kinds = [...new Set(result.latencySeries.flatMap((b) => Object.keys(b.p50)))].sort();
  const panels: Panel[] = [
    {
      title: 'Memory (MB): RSS per process, V8 heap used (dashed)',
      yLabel: 'MB',
      log: false,
      series: [
        ...names.map((name) => ({
          name: `${name} RSS`,
          points: result.memory.samples.map((s) => [s.t, s.rssMb[name] ?? NaN] as [number, number]),
        })),
        ...heapNames.map((name) => ({
          name: `${name} heap`,
          points: result.memory.samples.map((s) => [s.t, s.heapMb[name] ?? NaN] as [number, number]),
        })),
      ],
    },
    {
      title: 'Latency p50 per request kind (ms, log scale)',
      yLabel: 'ms',
      log: true,
      series: kinds.map((kind) => ({
        name: kind,
        points: result.latencySeries.map((b) => [b.t, b.p50[kind] ?? NaN] as [number, number]),
      })),
    },
  ];
  const height = panels.length * (panelHeight + margin.top + margin.bottom);
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
  ];
  panels.forEach((panel, i) => {
    const top = i * (panelHeight + margin.top + margin.bottom) + margin.top;
    const bottom = top + panelHeight;
    const values = panel.series
      .flatMap((s) => s.points.map(([, v]) => v))
      .filter((v) => Number.isFinite(v) && (!panel.log || v > 0));
    const lo = panel.log ? 10 ** Math.floor(Math.log10(Math.min(...values, 1))) : 0;
    const hiRaw = Math.max(...values, panel.log ? 10 : 1);
    const yTicks = panel.log ? logTicks(lo, 10 ** Math.ceil(Math.log10(hiRaw))) : linearTicks(0, hiRaw);
    const hi = panel.log ? 10 ** Math.ceil(Math.log10(hiRaw)) : Math.max(hiRaw, yTicks.at(-1) ?? hiRaw);
    const y = (v: number) =>
      panel.log
        ? bottom - ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo) || 1)) * panelHeight
        : bottom - (v / (hi || 1)) * panelHeight;
    out.push(`<text x="${margin.left}" y="${top - 14}" font-size="14">${escapeXml(panel.title)}</text>`);
    for (const f of result.faults) {
      const x0 = x(f.startMs);
      const w = Math.max(2, x(f.endMs) - x0);
      out.push(
        `<rect x="${x0.toFixed(1)}" y="${top}" width="${w.toFixed(1)}" height="${panelHeight}" fill="${FAULT_COLOURS[f.kind]}" opacity="0.18"><title>${f.kind}</title></rect>`,
      );
      if (i === 0)
        out.push(
          `<text x="${x0.toFixed(1)}" y="${top + 12}" font-size="10" fill="${FAULT_COLOURS[f.kind]}">${f.kind}</text>`,
        );
    }
    for (const t of yTicks) {
      if (panel.log ? t < lo || t > hi : t > hi) continue;
      out.push(
        `<line x1="${margin.left}" x2="${margin.left + plotWidth}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}" stroke="#ddd"/>`,
        `<text x="${margin.left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${t}</text>`,
      );
    }
    for (const t of xTicks)
      out.push(`<text x="${x(t * 60_000).toFixed(1)}" y="${bottom + 16}" text-anchor="middle">${t}</text>`);
    out.push(
      `<text x="${margin.left + plotWidth / 2}" y="${bottom + 32}" text-anchor="middle">minutes into the load</text>`,
      `<rect x="${margin.left}" y="${top}" width="${plotWidth}" height="${panelHeight}" fill="none" stroke="#444"/>`,
    );
    panel.series.forEach((s, j) => {
      const colour = PALETTE[j % PALETTE.length]!;
      const dashed = s.name.endsWith(' heap');
      // A gap (a process down, no requests in a bucket) breaks the line.
      let d = '';
      let pen = false;
      for (const [t, v] of s.points) {
        if (!Number.isFinite(v) || (panel.log && v <= 0)) {
          pen = false;
          continue;
        }
        d += `${pen ? 'L' : 'M'}${x(t).toFixed(1)},${y(Math.min(v, hi)).toFixed(1)}`;
        pen = true;
      }
      if (d)
        out.push(
          `<path d="${d}" fill="none" stroke="${colour}" stroke-width="1.5"${dashed ? ' stroke-dasharray="5,3"' : ''}/>`,
        );
      const ly = top + 14 + j * 16;
      out.push(
        `<line x1="${margin.left + plotWidth + 10}" x2="${margin.left + plotWidth + 30}" y1="${ly - 4}" y2="${ly - 4}" stroke="${colour}" stroke-width="2"${dashed ? ' stroke-dasharray="5,3"' : ''}/>`,
        `<text x="${margin.left + plotWidth + 36}" y="${ly}">${escapeXml(s.name)}</text>`,
      );
    });
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

const cell = (v: number) => (Number.isFinite(v) ? String(round(v)) : '-');

export function soakMarkdown(result: SoakResult, chartFile: string): string {
  const r = result.run;
  const lines = [
    `# Soak: ${r.minutes} minutes, ${r.startedAt}`,
    '',
    `Commit \`${r.commit.slice(0, 7)}\`${r.dirty ? ' (with uncommitted changes)' : ''}; ${r.machine.cpus} cores (${r.machine.cpuModel}), Node ${r.machine.node}.`,
    r.leftOut.length > 0 ? `Not in the load: ${r.leftOut.join('; ')}.` : 'Every kind of work is in the load.',
    '',
    '## Deliveries',
    '',
    'Lost: still pending (or never written) after the load stopped, every fault was restored and the',
    'stack had time to settle. Recorded twice: more than one first write in the worker logs. Sent',
    'twice: a push prompt that reached its agent more than once.',
    '',
    markdownTable(
      ['Kind', 'Started', 'Recorded once', 'Lost', 'Recorded twice', 'Sent twice', 'Unacknowledged', 'Outcomes'],
      result.deliveries.map((d) => [
        d.kind,
        String(d.started),
        String(d.recordedOnce),
        String(d.lost),
        String(d.recordedTwice),
        String(d.sentTwice),
        String(d.unacknowledged),
        Object.entries(d.outcomes)
          .map(([k, n]) => `${k} ${n}`)
          .join(', '),
      ]),
    ),
    '',
    `Duplicates: ${result.duplicates.length > 0 ? result.duplicates.join(', ') : 'none'}.`,
    '',
    'Unacknowledged: sandbox rows written although the soak got no 202 for them (the request timed',
    'out or the API restarted before it answered); they are not counted as started, but one still',
    'pending at the end counts as lost.',
    '',
    ...settleSection(result.settle),
    '## Votes',
    '',
    'One judge starts live battles and votes, each verdict in turn, on what `judge/next` hands out. A vote',
    'counts once when its battle holds exactly two rating changes and every Elo is where its',
    'changes, applied in order, put it.',
    '',
    markdownTable(
      [
        'Live battles',
        'Votes acknowledged',
        'Refused',
        'Unanswered',
        'Battles voted',
        'Changes not two',
        'Changes without a vote',
        'Elo mismatches',
      ],
      [
        [
          result.votes.liveBattlesStarted,
          result.votes.acknowledged,
          result.votes.refused,
          result.votes.unanswered,
          result.votes.battlesVoted,
          result.votes.changesNotTwo,
          result.votes.changesWithoutVote,
          result.votes.eloMismatches,
        ].map(String),
      ],
    ),
    '',
    '## Faults',
    '',
    markdownTable(
      ['Fault', 'At (s)', 'Back after (s)', 'Error'],
      result.faults.map((f) => [f.kind, cell(f.startMs / 1000), cell((f.endMs - f.startMs) / 1000), f.error ?? '']),
    ),
    '',
    '## Memory',
    '',
    'Slope of a line fitted to the second half of the samples, MB per hour (a restarted process starts',
    'again from its start-up size, so a slope across a restart reads low).',
    '',
    markdownTable(
      ['Process', 'RSS first (MB)', 'RSS last (MB)', 'RSS slope (MB/h)', 'Heap slope (MB/h)'],
      Object.keys(result.memory.rssSlope).map((name) => {
        const with_ = result.memory.samples.filter((s) => Number.isFinite(s.rssMb[name]));
        return [
          name,
          cell(with_[0]?.rssMb[name] ?? NaN),
          cell(with_.at(-1)?.rssMb[name] ?? NaN),
          cell(result.memory.rssSlope[name] ?? NaN),
          cell(result.memory.heapSlope[name] ?? NaN),
        ];
      }),
    ),
    '',
    '## Latency',
    '',
    'Successful requests started in the first and in the last fifth of the load, ms.',
    '',
    markdownTable(
      ['Request', 'First fifth p50 / p99', 'Last fifth p50 / p99', 'Not 2xx / total'],
      result.latency.map((l) => [
        l.kind,
        `${cell(l.first.p50)} / ${cell(l.first.p99)} (${l.first.count})`,
        `${cell(l.last.p50)} / ${cell(l.last.p99)} (${l.last.count})`,
        `${l.unavailable} / ${l.total}`,
      ]),
    ),
    '',
    '## Storage',
    '',
    markdownTable(
      ['', 'Total (MB)', 'Per 1,000 deliveries (MB)'],
      [
        ['PostgreSQL database', cell(result.storage.databaseMb), cell(result.storage.perThousand.databaseMb)],
        ['Temporal data', cell(result.storage.temporalMb), cell(result.storage.perThousand.temporalMb)],
        ['Data folder', cell(result.storage.dataFolderMb), cell(result.storage.perThousand.dataFolderMb)],
      ],
    ),
    '',
    `${result.storage.deliveries} deliveries in the database.`,
    '',
    markdownTable(
      ['Table', 'Rows', 'MB (with indexes)', 'Per 1,000 deliveries (MB)'],
      result.storage.tables.map((t) => [t.table, String(t.rows), cell(t.mb), cell(t.perThousandMb)]),
    ),
    '',
    markdownTable(
      ['Data folder entry', 'MB', 'Per 1,000 deliveries (MB)'],
      result.storage.folders.map((f) => [f.entry, cell(f.mb), cell(f.perThousandMb)]),
    ),
    '',
    `![memory and latency over time](${chartFile})`,
    '',
  ];
  return lines.join('\n');
}

/**
 * The settling: each delivery open once the load stopped, and its verdict. Slow (ended past its
 * deadline, within its bound) is reported; lost, overdue and unsettled fail the run.
 */
export function settleSection(settle: SettleRecord): string[] {
  const late = settle.deliveries.filter((d) => d.verdict !== 'in time');
  const counts = SETTLE_VERDICTS.map((v) => `${settle.deliveries.filter((d) => d.verdict === v).length} ${v}`);
  return [
    '## Settling',
    '',
    `Each delivery still open once the load stopped was followed through its workflow (${Math.round(settle.ms / 1000)} s): ${counts.join(', ')}.`,
    'Slow: ended past its deadline, within its bound (the deadline again, 10 s of push grace, a',
    'minute of the outcome write retrying, 10 s for a workflow task lost with its worker; counted',
    'from the last fault restored when later). Lost: no workflow, or a workflow closed with its row',
    'open. Overdue: its workflow still running past the bound.',
    '',
    ...(late.length > 0
      ? [
          markdownTable(
            ['Delivery', 'Mode', 'Verdict', 'Past deadline (s)', 'Bound (s)', 'Workflow'],
            late.map((d) => [
              `${d.kind}-${d.id}`,
              d.mode,
              d.verdict,
              String(d.pastDeadlineS),
              String(d.boundS),
              d.detail,
            ]),
          ),
          '',
        ]
      : []),
  ];
}

export async function writeSoakResults(
  dir: string,
  stamp: string,
  result: SoakResult,
  loadMs: number,
): Promise<{ json: string; markdown: string; chart: string }> {
  await fs.mkdir(dir, { recursive: true });
  const base = path.join(dir, `${stamp}-soak`);
  const files = { json: `${base}.json`, markdown: `${base}.md`, chart: `${base}.svg` };
  await fs.writeFile(files.json, `${JSON.stringify(result, null, 2)}\n`);
  await fs.writeFile(files.chart, soakChart(result, loadMs));
  await fs.writeFile(files.markdown, soakMarkdown(result, path.basename(files.chart)));
  return files;
}
