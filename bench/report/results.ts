/** The run's results: one JSON file with everything, a Markdown report and the SVG charts, named by the run's start time. */
import type { ProtocolsResult } from '../protocols/protocols-figure';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { DeadlineResult } from '../deadlines/deadline-figure';
import type { PullResult } from '../pull/pull-figure';
import type { PushResult } from '../push/push-figure';
import type { StageResult } from '../push/stages';
import type { ReadsResult } from '../reads/reads-figure';
import { scaleMarkdown } from '../scale/scale-report';
import type { ScaleResult } from '../scale/scale-figure';
import type { BoardsResult } from '../boards/boards-figure';
import type { HumanEvalResult } from '../sandbox/humaneval-figure';
import type { SandboxResult } from '../sandbox/sandbox-figure';
import type { CostResult } from '../engine/cost-figure';
import { renderChart } from './chart';
import type { PushProfile } from './stage-profiler';
import type { FigureRow } from './model';
import { figuresMarkdown, formatNumber, markdownTable } from './table';

export interface RunInfo {
  startedAt: string;
  finishedAt: string;
  profile: 'quick' | 'full';
  commit: string;
  /** Uncommitted changes in the checkout when it ran. */
  dirty: boolean;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    node: string;
    temporalCli: string;
    /** 1-minute load average before the stack started and after the last figure: others' work on the machine. */
    loadBefore: number;
    loadAfter: number;
  };
  note?: string;
}

export interface BenchResults {
  run: RunInfo;
  figures: FigureRow[];
  push?: PushResult;
  deadlines?: DeadlineResult;
  reads?: ReadsResult;
  pull?: PullResult;
  scale?: ScaleResult;
  boards?: BoardsResult;
  sandbox?: SandboxResult;
  humaneval?: HumanEvalResult;
  protocols?: ProtocolsResult;
  cost?: CostResult;
}

/** `2026-11-22T21-05-03Z`: sortable, and valid in file names everywhere. */
export function runStamp(date: Date): string {
  return date
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-');
}

function cpuCell(cpu: Record<string, number>): string {
  return Object.entries(cpu)
    .filter(([, v]) => v >= 1)
    .sort((a, b) => b[1] - a[1])
    .map(([name, v]) => `${name} ${v.toFixed(0)}%`)
    .join(', ');
}

function stagesTable(stages: StageResult[]): string {
  return markdownTable(
    [
      'offered /s',
      'completed /s',
      'kept up',
      'accept p50 ms',
      'overhead p50 ms',
      'p95',
      'p99',
      'end-to-end p50 ms',
      'p99',
      'errors',
      'CPU (% of a core)',
      'CPU ms per delivery',
    ],
    stages.map((s) => [
      String(s.offered),
      formatNumber(s.achieved),
      s.keptUp ? 'yes' : 'no',
      formatNumber(s.accept.p50),
      formatNumber(s.overhead.p50),
      formatNumber(s.overhead.p95),
      formatNumber(s.overhead.p99),
      formatNumber(s.endToEnd.p50),
      formatNumber(s.endToEnd.p99),
      String(s.errors),
      cpuCell(s.cpu),
      Object.entries(s.cpuMsPerDelivery)
        .filter(([, v]) => v >= 0.5)
        .sort((a, b) => b[1] - a[1])
        .map(([name, v]) => `${name} ${v.toFixed(1)}`)
        .join(', '),
    ]),
  );
}

function profileMarkdown(profile: PushProfile, during: string): string[] {
  const out = [
    `### Where the time goes (--profile, ${during})`,
    '',
    "Shares of each thread's busy samples; the CPU table above gives each process's total.",
    '',
  ];
  for (const [thread, s] of Object.entries(profile.threads)) {
    if (s.busyPercent < 1) continue;
    out.push(`#### ${thread}: busy ${s.busyPercent}% of the time`, '');
    out.push(
      markdownTable(
        ['package', '%', 'function', '%'],
        s.packages.map((pk, i) => [
          pk.name,
          pk.percent.toFixed(1),
          s.functions[i]?.name ?? '',
          s.functions[i]?.percent.toFixed(1) ?? '',
        ]),
      ),
      '',
    );
  }
  const t = profile.temporal;
  if (typeof t === 'string') out.push(`Temporal server: ${t}.`, '');
  else {
    out.push(`#### Temporal dev server (perf, ${t.samples} samples, ${t.kernelPercent}% in the kernel)`, '');
    out.push(
      markdownTable(
        ['package', '%', 'function', '%'],
        t.packages.map((pk, i) => [
          pk.name,
          pk.percent.toFixed(1),
          t.functions[i]?.name ?? '',
          t.functions[i]?.percent.toFixed(1) ?? '',
        ]),
      ),
      '',
    );
  }
  return out;
}

export function resultsMarkdown(results: BenchResults, chartFiles: string[]): string {
  const { run } = results;
  const m = run.machine;
  const out: string[] = [
    `# Benchmark run ${run.startedAt} (${run.profile})`,
    '',
    `Commit \`${run.commit.slice(0, 12)}\`${run.dirty ? ' with uncommitted changes in the checkout' : ''}; ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GiB; Node ${m.node}; ${m.temporalCli}. ` +
      `Load average ${m.loadBefore.toFixed(2)} before, ${m.loadAfter.toFixed(2)} after.${run.note ? ` ${run.note}` : ''}`,
    '',
    'Every ratio is arena ÷ baseline, both measured in this run; "better" says which way is good.',
    '',
    figuresMarkdown(results.figures),
    '',
  ];
  if (results.push) {
    const p = results.push;
    out.push(
      '## Push',
      '',
      `Latency figures are read at ${p.referenceRate}/s offered, the highest rate the arena kept up with (≥ 90% completed per second, no errors).`,
      '',
    );
    for (const [name, stages] of [
      ['Arena (sandbox deliveries through the API)', p.stages.arena],
      ['(b) engine: one no-op activity per workflow', p.stages.engine],
      ['(a) bare signed-POST loop', p.stages.bare],
      ['(c) same job, nothing of ours', p.stages.sameJob],
    ] as const) {
      out.push(`### ${name}`, '', stagesTable(stages), '');
    }
    out.push(...chartFiles.filter((f) => !f.endsWith('-scale.svg')).map((f) => `![${f}](${f})`), '');
    if (p.profile) out.push(...profileMarkdown(p.profile, "during the arena's push stages"));
  }
  if (results.deadlines) {
    const d = results.deadlines;
    out.push(
      '## Deadlines',
      '',
      `${d.deliveries} deliveries at ${d.rate}/s, ${d.deadlineSeconds} s deadlines, agents that never answer. Recorded minus deadline, signed (late positive), from the moment the prompt left: arena min ${formatNumber(d.arenaSigned.min)} ms, p1 ${formatNumber(d.arenaSigned.p1)} ms, p50 ${formatNumber(d.arenaSigned.p50)} ms, p99 ${formatNumber(d.arenaSigned.p99)} ms; engine p1 ${formatNumber(d.engineSigned.p1)} ms, p50 ${formatNumber(d.engineSigned.p50)} ms, p99 ${formatNumber(d.engineSigned.p99)} ms. From created_at instead: p1 ${formatNumber(d.arenaFromCreated.p1)} ms, p50 ${formatNumber(d.arenaFromCreated.p50)} ms; created_at to the prompt leaving: p50 ${formatNumber(d.createdToLeft.p50)} ms, p99 ${formatNumber(d.createdToLeft.p99)} ms. Recorded statuses: ${Object.entries(
        d.statuses,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}. CPU: ${cpuCell(d.cpu)}.`,
      '',
    );
  }
  if (results.reads) {
    const r = results.reads;
    out.push(
      '## Reads',
      '',
      `GET /api/agents/${r.agentId}/activity (${r.feedSessions} sessions, default page of 25), ${r.connections} connections, ${r.seconds} s after a warm-up.`,
      '',
      markdownTable(
        ['', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'CPU (% of a core)'],
        (
          [
            ['arena', r.arena],
            ['bare', r.bare],
          ] as const
        ).map(([name, side]) => [
          name,
          ...[side.requestsPerSecond, side.p50, side.p99].map(formatNumber),
          String(side.errors + side.non2xx),
          cpuCell(side.cpu),
        ]),
      ),
      '',
    );
    if (r.profile) out.push(...profileMarkdown(r.profile, "during the arena's measured read run"));
  }
  if (results.pull) {
    const p = results.pull;
    out.push(
      '## Pull',
      '',
      `${p.polls} long-polls, idle for ${p.idleSeconds} s, then ${p.wakes} wakes.`,
      '',
      markdownTable(
        [
          '',
          'RSS at start MB',
          'RSS idle MB',
          'V8 heap used / total MB (idle)',
          'CPU idle (% of a core)',
          'opened in s',
          'wake p50 ms',
          'wake p99 ms',
          'client errors',
          'CPU of all while idle',
        ],
        (
          [
            ['arena API', p.arena],
            ['bare server', p.bare],
          ] as const
        ).map(([name, side]) => [
          name,
          ...[side.startRssMb, side.idleRssMb].map(formatNumber),
          side.idleHeapMb ? `${formatNumber(side.idleHeapMb.used)} / ${formatNumber(side.idleHeapMb.total)}` : '',
          ...[side.idleCpuPercent, side.openedInSeconds, side.wake.p50, side.wake.p99].map(formatNumber),
          String(side.errors),
          cpuCell(side.idleCpu),
        ]),
      ),
      '',
    );
  }
  if (results.scale) {
    const s = results.scale;
    out.push(
      ...scaleMarkdown(
        s,
        s.limits,
        chartFiles.find((f) => f.endsWith('-scale.svg')),
      ),
    );
  }
  return out.join('\n');
}

export async function writeResults(
  dir: string,
  results: BenchResults,
): Promise<{ json: string; markdown: string; charts: string[] }> {
  await fs.mkdir(dir, { recursive: true });
  const stamp = runStamp(new Date(results.run.startedAt));
  const charts: string[] = [];
  if (results.push) {
    for (const [suffix, spec] of [
      ['', results.push.charts.overhead],
      ['-end-to-end', results.push.charts.endToEnd],
    ] as const) {
      const file = `${stamp}${suffix}.svg`;
      await fs.writeFile(path.join(dir, file), renderChart(spec));
      charts.push(file);
    }
  }
  if (results.scale) {
    const file = `${stamp}-scale.svg`;
    await fs.writeFile(path.join(dir, file), renderChart(results.scale.chart));
    charts.push(file);
  }
  const json = path.join(dir, `${stamp}.json`);
  const markdown = path.join(dir, `${stamp}.md`);
  await fs.writeFile(json, `${JSON.stringify(results, null, 2)}\n`);
  await fs.writeFile(markdown, `${resultsMarkdown(results, charts)}\n`);
  return { json, markdown, charts: charts.map((c) => path.join(dir, c)) };
}
