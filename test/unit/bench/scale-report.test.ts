/** The scale figure's pure parts: where each seeded answer goes, the baseline's cut-off, the rows, the chart and the section. */
import { renderChart } from '../../../bench/report/chart';
import { summarize } from '../../../bench/lib/stats';
import type { RefitOutcome } from '../../../bench/scale/refit';
import {
  baselineFromCalls,
  dispatchMsPer1000,
  scaleChart,
  scaleFigures,
  scaleMarkdown,
  type ScaleLimits,
  type ScaleStep,
} from '../../../bench/scale/scale-report';
import { answerSlot } from '../../../bench/scale/seed';

const limits: ScaleLimits = { judges: 16, judgeRounds: 5, baselineCalls: 5, baselineLimitSeconds: 10 };

function step(answers: number, over: Partial<ScaleStep> = {}): ScaleStep {
  return {
    answers,
    votes: answers,
    pairs: answers * 4,
    seedSeconds: 3,
    next: summarize([4, 5, 6, 20]),
    vote: summarize([40, 50, 60, 90]),
    alone: { next: summarize([3, 4]), vote: summarize([30, 35]) },
    empty: 0,
    errors: 0,
    baseline: baselineFromCalls(
      [
        { ms: 800, timedOut: false },
        { ms: 900, timedOut: false },
      ],
      10,
    ),
    dispatch: { sessions: 10_000, batches: 10, batchSize: 1_000, totalMs: 5_000, msPer1000: 500 },
    ...over,
  };
}

const finished: RefitOutcome = {
  finished: true,
  wallMs: 30_000,
  votes: 1_000_000,
  agents: 10_000,
  boards: 16,
  refreshMs: 25_000,
  maxRssMb: 700,
};

describe('answerSlot', () => {
  it('gives each prompt its answers from distinct agents, and every agent one answer in the first round of the pool', () => {
    const agents = 100;
    const prompts = 10;
    const byPrompt = new Map<number, Set<number>>();
    const firstRound = new Set<number>();
    for (let k = 0; k < agents * prompts; k++) {
      const { agent, prompt } = answerSlot(k, agents, prompts);
      const seen = byPrompt.get(prompt) ?? new Set<number>();
      expect(seen.has(agent)).toBe(false);
      seen.add(agent);
      byPrompt.set(prompt, seen);
      if (k < agents) firstRound.add(agent);
    }
    expect(firstRound.size).toBe(agents);
    expect([...byPrompt.values()].every((s) => s.size === agents)).toBe(true);
  });
});

describe('the old query baseline', () => {
  it('is stopped at a size where a call was cancelled or took longer than the limit', () => {
    expect(baselineFromCalls([{ ms: 10_000, timedOut: true }], 10).passedLimit).toBe(true);
    expect(baselineFromCalls([{ ms: 10_500, timedOut: false }], 10).passedLimit).toBe(true);
    expect(baselineFromCalls([{ ms: 9_000, timedOut: false }], 10).passedLimit).toBe(false);
  });
});

describe('dispatchMsPer1000', () => {
  it('scales the step to 1,000 sessions, and is not a number when none was made', () => {
    expect(dispatchMsPer1000(5_000, 10_000)).toBe(500);
    expect(dispatchMsPer1000(5_000, 0)).toBeNaN();
  });
});

describe('scaleFigures', () => {
  it('gives judge/next p99 per size against the old query, with the target met only at or below 50 ms', () => {
    const slow = step(100_000, { next: summarize([10, 60]) });
    const rows = scaleFigures([step(10_000), slow], finished, limits);
    const judge = rows.filter((r) => r.name.startsWith('judge/next p99') && !r.name.endsWith('alone'));
    expect(judge.map((r) => r.name)).toEqual(['judge/next p99 at 10k answers', 'judge/next p99 at 100k answers']);
    expect(judge[0]).toMatchObject({ value: 20, baseline: 900, met: true });
    expect(judge[0]!.ratio).toBeCloseTo(20 / 900);
    expect(judge[1]).toMatchObject({ value: 60, met: false });
  });

  it('gives one judge alone beside the concurrent ones, against the same baseline and without a target', () => {
    const rows = scaleFigures([step(10_000)], undefined, limits);
    const alone = rows.find((r) => r.name === 'judge/next p99 at 10k answers, one judge alone');
    expect(alone).toMatchObject({ value: 4, baseline: 900 });
    expect(alone!.met).toBeUndefined();
    expect(alone!.note).toContain('vote p50 / p99 30 / 35 ms');
  });

  it('says where the old query was stopped, and leaves its figure out there', () => {
    const rows = scaleFigures(
      [
        step(10_000, { baseline: baselineFromCalls([{ ms: 10_001, timedOut: true }], 10) }),
        step(100_000, { baseline: { ran: false, reason: 'a call passed 10 s at 10000 answers' } }),
      ],
      undefined,
      limits,
    );
    const [first, second] = rows.filter((r) => r.name.startsWith('judge/next p99') && !r.name.endsWith('alone'));
    expect(first!.baseline).toBeNaN();
    expect(first!.note).toContain('a call passed 10 s, stopped');
    expect(second!.note).toContain('old query not run: a call passed 10 s');
  });

  it('fails judge/next when judges met errors, and measures vote p99 against 100 ms', () => {
    const rows = scaleFigures([step(10_000, { errors: 1, vote: summarize([150]) })], undefined, limits);
    expect(rows.find((r) => r.name.startsWith('judge/next'))!.met).toBe(false);
    expect(rows.find((r) => r.name.startsWith('vote p99'))).toMatchObject({ value: 150, met: false });
  });

  it('reads the dispatch step at the largest size against 2 s per 1,000', () => {
    const rows = scaleFigures(
      [
        step(10_000),
        step(1_000_000, {
          dispatch: { sessions: 10_000, batches: 10, batchSize: 1_000, totalMs: 25_000, msPer1000: 2_500 },
        }),
      ],
      undefined,
      limits,
    );
    const dispatch = rows.filter((r) => r.name.startsWith('dispatch step'));
    expect(dispatch).toHaveLength(1);
    expect(dispatch[0]).toMatchObject({ value: 2_500, met: false });
    expect(dispatch[0]!.note).toContain('1M answers');
  });

  it('reports a refresh that finished by its wall time and peak RSS, and one that did not as not met, with the reason', () => {
    const done = scaleFigures([step(10_000)], finished, limits);
    expect(done.find((r) => r.name === 'leaderboard refresh wall time')).toMatchObject({ value: 25, met: true });
    expect(done.find((r) => r.name === 'leaderboard refresh peak RSS')).toMatchObject({ value: 700, met: true });

    const stopped: RefitOutcome = {
      finished: false,
      reason: 'did not finish in 300 s',
      wallMs: 300_000,
      votes: 1_000_000,
      agents: 10_000,
      maxRssMb: 900,
    };
    const rows = scaleFigures([step(10_000)], stopped, limits);
    const time = rows.find((r) => r.name === 'leaderboard refresh wall time')!;
    expect(time.value).toBeNaN();
    expect(time.met).toBe(false);
    expect(time.note).toContain('did not finish in 300 s');
    expect(rows.find((r) => r.name === 'leaderboard refresh peak RSS')).toMatchObject({ value: 900, met: false });
  });
});

describe('scaleChart', () => {
  it('plots judge/next and the old query against the answers, the old query at its limit where it passed it', () => {
    const chart = scaleChart(
      [step(10_000), step(100_000, { baseline: baselineFromCalls([{ ms: 10_000, timedOut: true }], 10) })],
      limits,
    );
    const series = Object.fromEntries(chart.series.map((s) => [s.name, s.points]));
    expect(series['judge/next p99']).toEqual([
      [10_000, 20],
      [100_000, 20],
    ]);
    expect(series['old query p99']).toEqual([[10_000, 900]]);
    expect(series['old query > 10 s']).toEqual([[100_000, 10_000]]);
    expect(renderChart(chart)).toContain('judge/next p99');
  });
});

describe('scaleMarkdown', () => {
  it('has a row per size, the old query past its limit as such, the refresh and the chart', () => {
    const text = scaleMarkdown(
      {
        agents: 10_000,
        owners: 5_000,
        prompts: 200,
        steps: [step(10_000), step(100_000, { baseline: { ran: false, reason: 'stopped at 10k' } })],
        refit: finished,
      },
      limits,
      'run-scale.svg',
    ).join('\n');
    expect(text).toContain('| 10000 | 10000 | 40000 | 5 | 20 | 50 | 90 | 3 / 4 | 30 / 35 | 800 | 900 | 500 | 0 | 3 |');
    expect(text).toContain('| not run | not run |');
    expect(text).toContain('At 100000 answers the old query was not run: stopped at 10k.');
    expect(text).toContain('16 boards in 25 s');
    expect(text).toContain('![run-scale.svg](run-scale.svg)');
  });
});
