/** The scale figure's rows, chart and Markdown section from its measurements; pure, so the unit tests pin them down. */
import { round, summarize, type Summary } from '../lib/stats';
import { figure, type ChartSpec, type FigureRow } from '../report/model';
import { formatNumber, markdownTable } from '../report/table';
import type { RefitOutcome } from './refit';

/** The old judge/next query at one size: its calls, or why it was not run there. */
export type BaselineAtSize =
  | {
      ran: true;
      calls: number;
      summary: Summary;
      /** a call passed the limit (it was cancelled there) */ passedLimit: boolean;
    }
  | { ran: false; reason: string };

export interface ScaleStep {
  answers: number;
  votes: number;
  pairs: number;
  seedSeconds: number;
  next: Summary;
  vote: Summary;
  /** One judge on their own (nothing else in flight): what a call costs without the queue of the concurrent ones. */
  alone: { next: Summary; vote: Summary };
  /** judge/next answered 204 (no open pair left for that judge). */
  empty: number;
  errors: number;
  firstError?: string;
  baseline: BaselineAtSize;
  dispatch: { sessions: number; batches: number; batchSize: number; totalMs: number; msPer1000: number };
}

export interface ScaleLimits {
  judges: number;
  judgeRounds: number;
  baselineCalls: number;
  baselineLimitSeconds: number;
}

export const JUDGE_NEXT_P99_TARGET_MS = 50;
export const VOTE_P99_TARGET_MS = 100;
export const DISPATCH_MS_PER_1000_TARGET = 2_000;
export const REFIT_SECONDS_TARGET = 60;
export const REFIT_RSS_MB_TARGET = 1_024;

const BASELINE_NAME = 'old judge/next query (leastJudgedPair), one call at a time';

/** The baseline's figure at one size, in ms: NaN where it was not run or passed the limit. */
function baselineMs(b: BaselineAtSize, pick: 'p50' | 'p99'): number {
  return b.ran && !b.passedLimit ? b.summary[pick] : Number.NaN;
}

function sizeLabel(answers: number): string {
  return answers >= 1_000_000 && answers % 1_000_000 === 0
    ? `${answers / 1_000_000}M`
    : answers >= 1_000 && answers % 1_000 === 0
      ? `${answers / 1_000}k`
      : String(answers);
}

export function dispatchMsPer1000(totalMs: number, sessions: number): number {
  return sessions > 0 ? (totalMs * 1000) / sessions : Number.NaN;
}

export function baselineFromCalls(
  calls: Array<{ ms: number; timedOut: boolean }>,
  limitSeconds: number,
): Extract<BaselineAtSize, { ran: true }> {
  const passedLimit = calls.some((c) => c.timedOut || c.ms > limitSeconds * 1000);
  return { ran: true, calls: calls.length, summary: summarize(calls.map((c) => c.ms)), passedLimit };
}

export function scaleFigures(
  steps: readonly ScaleStep[],
  refit: RefitOutcome | undefined,
  limits: ScaleLimits,
): FigureRow[] {
  const group = 'Scale';
  const rows: FigureRow[] = [];
  for (const s of steps) {
    const size = sizeLabel(s.answers);
    const stopped = s.baseline.ran
      ? s.baseline.passedLimit
        ? `; old query: a call passed ${limits.baselineLimitSeconds} s, stopped`
        : ''
      : `; old query not run: ${s.baseline.reason}`;
    rows.push(
      figure({
        group,
        name: `judge/next p99 at ${size} answers`,
        unit: 'ms',
        value: round(s.next.p99),
        baselineName: BASELINE_NAME,
        baseline: round(baselineMs(s.baseline, 'p99')),
        better: 'lower',
        target: `<= ${JUDGE_NEXT_P99_TARGET_MS} ms`,
        met: s.errors === 0 && s.next.count > 0 && s.next.p99 <= JUDGE_NEXT_P99_TARGET_MS,
        note: `${limits.judges} concurrent judges, p50 ${formatNumber(s.next.p50)} ms${stopped}`,
      }),
      figure({
        group,
        name: `judge/next p99 at ${size} answers, one judge alone`,
        unit: 'ms',
        value: round(s.alone.next.p99),
        baselineName: BASELINE_NAME,
        baseline: round(baselineMs(s.baseline, 'p99')),
        better: 'lower',
        note: `p50 ${formatNumber(s.alone.next.p50)} ms; vote p50 / p99 ${formatNumber(s.alone.vote.p50)} / ${formatNumber(s.alone.vote.p99)} ms`,
      }),
    );
  }
  for (const s of steps)
    rows.push(
      figure({
        group,
        name: `vote p99 at ${sizeLabel(s.answers)} answers`,
        unit: 'ms',
        value: round(s.vote.p99),
        baselineName: 'none',
        baseline: Number.NaN,
        better: 'lower',
        target: `<= ${VOTE_P99_TARGET_MS} ms`,
        met: s.errors === 0 && s.vote.count > 0 && s.vote.p99 <= VOTE_P99_TARGET_MS,
        note: `through the vote workflow, p50 ${formatNumber(s.vote.p50)} ms`,
      }),
    );
  const last = steps.at(-1);
  if (last)
    rows.push(
      figure({
        group,
        name: `dispatch step: sessions for ${formatNumber(last.dispatch.sessions)} due agents, per 1,000`,
        unit: 'ms',
        value: round(last.dispatch.msPer1000),
        baselineName: 'none',
        baseline: Number.NaN,
        better: 'lower',
        target: `<= ${DISPATCH_MS_PER_1000_TARGET} ms`,
        met: last.dispatch.msPer1000 <= DISPATCH_MS_PER_1000_TARGET,
        note: `${last.dispatch.batches} batches of ${last.dispatch.batchSize} at ${sizeLabel(last.answers)} answers`,
      }),
    );
  if (refit) {
    const boards = refit.finished ? `${refit.boards} boards` : 'every board';
    const note = `${formatNumber(refit.votes)} votes, ${formatNumber(refit.agents)} agents, ${boards}, intervals in closed form${refit.finished ? '' : `; ${refit.reason}`}`;
    rows.push(
      figure({
        group,
        name: 'leaderboard refresh wall time',
        unit: 's',
        value: refit.finished ? round(refit.refreshMs / 1000) : Number.NaN,
        baselineName: 'none',
        baseline: Number.NaN,
        better: 'lower',
        target: `<= ${REFIT_SECONDS_TARGET} s`,
        met: refit.finished && refit.refreshMs / 1000 <= REFIT_SECONDS_TARGET,
        note,
      }),
      figure({
        group,
        name: 'leaderboard refresh peak RSS',
        unit: 'MB',
        value: round(refit.maxRssMb),
        baselineName: 'none',
        baseline: Number.NaN,
        better: 'lower',
        target: `<= ${REFIT_RSS_MB_TARGET} MB`,
        met: refit.finished && refit.maxRssMb <= REFIT_RSS_MB_TARGET,
        note: refit.finished ? note : `${note} (peak seen until then)`,
      }),
    );
  }
  return rows;
}

/** judge/next p50 and p99 against the answers in the arena, the old query beside it, and the vote p99. */
export function scaleChart(steps: readonly ScaleStep[], limits: ScaleLimits): ChartSpec {
  const at = (pick: (s: ScaleStep) => number) =>
    steps.map((s) => [s.answers, pick(s)] as [number, number]).filter(([, y]) => Number.isFinite(y) && y > 0);
  const passed = steps.filter((s) => s.baseline.ran && s.baseline.passedLimit);
  return {
    title: `judge/next at ${limits.judges} concurrent judges against the arena's size`,
    xLabel: 'main answers in the arena (as many votes)',
    yLabel: 'latency, ms',
    logX: true,
    logY: true,
    series: [
      { name: 'judge/next p50', points: at((s) => s.next.p50), color: '#1f77b4' },
      { name: 'judge/next p99', points: at((s) => s.next.p99), color: '#d62728' },
      { name: 'old query p50', points: at((s) => baselineMs(s.baseline, 'p50')), color: '#1f77b4', dashed: true },
      { name: 'old query p99', points: at((s) => baselineMs(s.baseline, 'p99')), color: '#d62728', dashed: true },
      {
        name: `old query > ${limits.baselineLimitSeconds} s`,
        points: passed.map((s) => [s.answers, limits.baselineLimitSeconds * 1000] as [number, number]),
        color: '#7f7f7f',
        dashed: true,
      },
      { name: 'judge/next p99, one judge alone', points: at((s) => s.alone.next.p99), color: '#9467bd' },
      { name: 'vote p99', points: at((s) => s.vote.p99), color: '#2ca02c' },
      {
        name: `target p99 ${JUDGE_NEXT_P99_TARGET_MS} ms`,
        points: steps.map((s) => [s.answers, JUDGE_NEXT_P99_TARGET_MS] as [number, number]),
        color: '#bbbbbb',
        dashed: true,
      },
    ],
  };
}

function baselineCell(b: BaselineAtSize, limitSeconds: number, pick: 'p50' | 'p99'): string {
  if (!b.ran) return 'not run';
  if (b.passedLimit) return `> ${limitSeconds * 1000}`;
  return formatNumber(b.summary[pick]);
}

function refitLine(refit: RefitOutcome | undefined): string {
  if (!refit) return 'The leaderboard refresh was not measured.';
  const what = `The leaderboard refresh (the worker's activity: outlier judges, the published votes read, every board fitted raw and controlled for style with intervals in closed form, and written) over ${formatNumber(refit.votes)} votes and ${formatNumber(refit.agents)} agents, in a process of its own`;
  if (!refit.finished)
    return `${what}: ${refit.reason} (peak RSS seen ${formatNumber(refit.maxRssMb)} MB, after ${formatNumber(refit.wallMs / 1000)} s).`;
  return `${what}: ${refit.boards} boards in ${formatNumber(refit.refreshMs / 1000)} s, peak RSS ${formatNumber(refit.maxRssMb)} MB.`;
}

export function scaleMarkdown(
  result: { agents: number; owners: number; prompts: number; steps: readonly ScaleStep[]; refit?: RefitOutcome },
  limits: ScaleLimits,
  chartFile?: string,
): string[] {
  const out = [
    '## Scale',
    '',
    `${formatNumber(result.agents)} agents of ${formatNumber(result.owners)} owners, ${result.prompts} pool prompts; main answers, their candidate pairs (at most 4 per answer) and as many votes seeded straight into the database. ` +
      `At each size one fresh judge alone, then ${limits.judges} fresh judges at once, take a battle and vote, ${limits.judgeRounds} rounds each, over HTTP; the old judge/next query runs ${limits.baselineCalls} times, one at a time, on the same database, until a call passes ${limits.baselineLimitSeconds} s. ` +
      'The dispatch step creates one main session for every due agent through the repository, in batches of ARENA_DISPATCH_BATCH (no deliveries).',
    '',
    markdownTable(
      [
        'answers',
        'votes',
        'pairs',
        'judge/next p50 ms',
        'p99',
        'vote p50 ms',
        'p99',
        'one judge alone: judge/next p50 / p99 ms',
        'vote p50 / p99 ms',
        'old query p50 ms',
        'p99',
        'dispatch ms per 1,000',
        'errors',
        'seeded in s',
      ],
      result.steps.map((s) => [
        formatNumber(s.answers),
        formatNumber(s.votes),
        formatNumber(s.pairs),
        formatNumber(s.next.p50),
        formatNumber(s.next.p99),
        formatNumber(s.vote.p50),
        formatNumber(s.vote.p99),
        `${formatNumber(s.alone.next.p50)} / ${formatNumber(s.alone.next.p99)}`,
        `${formatNumber(s.alone.vote.p50)} / ${formatNumber(s.alone.vote.p99)}`,
        baselineCell(s.baseline, limits.baselineLimitSeconds, 'p50'),
        baselineCell(s.baseline, limits.baselineLimitSeconds, 'p99'),
        formatNumber(s.dispatch.msPer1000),
        String(s.errors + s.empty),
        formatNumber(s.seedSeconds),
      ]),
    ),
    '',
    refitLine(result.refit),
    '',
  ];
  const notes = result.steps.flatMap((s) => [
    ...(s.baseline.ran
      ? []
      : [`At ${formatNumber(s.answers)} answers the old query was not run: ${s.baseline.reason}.`]),
    ...(s.firstError ? [`At ${formatNumber(s.answers)} answers the first error was: ${s.firstError}`] : []),
    ...(s.empty > 0 ? [`At ${formatNumber(s.answers)} answers judge/next found nothing left ${s.empty} times.`] : []),
  ]);
  if (notes.length > 0) out.push(...notes, '');
  if (chartFile) out.push(`![${chartFile}](${chartFile})`, '');
  return out;
}
