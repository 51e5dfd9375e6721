/**
 * Replays the saved histories of test/histories/ against the current workflow code, so a change
 * that would break deliveries, gyms, dispatch steps and votes already running (a non-deterministic change) fails here.
 * Recording them: see test/histories/record-histories.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { historyFromJson } from '../../infra/temporal/history-json';

const HISTORIES_DIR = path.resolve(__dirname, '..', 'histories');

/** Every scenario the recorder saves: a lost file fails the suite instead of quietly shrinking it. */
const SCENARIOS = [
  'gym-pull-retried',
  'gym-push-complete',
  'pull-answered',
  'pull-cancelled',
  'pull-expired',
  'push-answered',
  'push-cancelled',
  'push-deadline',
  // Recorded while a push delivery sent from one activity and recorded from a local activity, with a
  // timer (before the push-activity-records-outcome patch).
  'push-answered.v3',
  'push-cancelled.v3',
  'push-deadline.v3',
  // Recorded while the deadline counted from the start of the workflow (before the deadline-from-prompt-left patch).
  'pull-expired.v2',
  'push-answered.v2',
  'push-cancelled.v2',
  'push-deadline.v2',
  // Recorded before queueing and recording became local activities (the local-database-writes patch).
  'pull-answered.v1',
  'pull-cancelled.v1',
  'pull-expired.v1',
  'push-answered.v1',
  'push-cancelled.v1',
  'push-deadline.v1',
  // A dispatch step, then one served by batches (the dispatch-every-due-agent patch), and one from before.
  'dispatch-arena',
  'dispatch-arena.v1',
  // A vote applied by a local activity (the vote-local-activity patch), and one from before.
  'record-vote',
  'record-vote.v1',
  // A coding session worked in pull mode and submitted, scored in a clean room (the coding-clean-room
  // patch), and one scored in its workspace, from before.
  'coding-session-pull',
  'coding-session-pull.v1',
  // A benchmark run of one task, twice (its sessions children of it), and a run of the hourly retention.
  'run-benchmark',
  'apply-retention',
  // A leaderboard refresh given minutes and heartbeats (the refresh-minutes-with-heartbeats patch), and one from before.
  'refresh-leaderboard',
  'refresh-leaderboard.v1',
];

/** The workflow a saved history must be of, by its name's prefix; the rest are deliveries. */
const WORKFLOW_OF_PREFIX: Record<string, string> = {
  'gym-': 'runGym',
  'dispatch-': 'dispatchArena',
  'record-vote': 'recordVote',
  'coding-session': 'codingSession',
  'run-benchmark': 'runBenchmark',
  'apply-retention': 'applyRetention',
  'refresh-leaderboard': 'refreshLeaderboard',
};

interface Saved {
  name: string;
  json: {
    events: Array<{ eventType: string; workflowExecutionStartedEventAttributes?: { workflowType: { name: string } } }>;
  };
}

const saved: Saved[] = fs
  .readdirSync(HISTORIES_DIR)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({
    name: path.basename(file, '.json'),
    json: JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, file), 'utf8')),
  }));

const workflowType = (s: Saved) => s.json.events[0]?.workflowExecutionStartedEventAttributes?.workflowType.name;

/** Replays the named histories and reports each one's error (null when it replayed cleanly). */
async function replay(workflowBundle: ReplayWorkerOptions['workflowBundle'], histories: Saved[]) {
  const results: Array<{ name: string; error: Error | null }> = [];
  const input = histories.map((s) => ({ workflowId: s.name, history: historyFromJson(s.json) }));
  for await (const result of Worker.runReplayHistories({ workflowBundle }, input)) {
    results.push({ name: result.workflowId, error: result.error ?? null });
  }
  return results;
}

describe('saved workflow histories', () => {
  it('cover every delivery scenario and the gym, each a finished execution', () => {
    expect(saved.map((s) => s.name)).toEqual(expect.arrayContaining(SCENARIOS));
    for (const s of saved) {
      expect({ name: s.name, type: workflowType(s) }).toEqual({
        name: s.name,
        type: Object.entries(WORKFLOW_OF_PREFIX).find(([prefix]) => s.name.startsWith(prefix))?.[1] ?? 'deliverPrompt',
      });
      expect({ name: s.name, last: s.json.events.at(-1)!.eventType }).toEqual({
        name: s.name,
        last: 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED',
      });
    }
  });

  it('replay without error on the current workflow code', async () => {
    const codePath = process.env.TEST_WORKFLOW_BUNDLE;
    if (!codePath)
      throw new Error(
        'TEST_WORKFLOW_BUNDLE is not set: run the tests through jest (its global setup bundles the workflows)',
      );
    expect(saved.length).toBeGreaterThanOrEqual(SCENARIOS.length);
    const results = await replay({ codePath }, saved);
    expect(results.map((r) => ({ name: r.name, error: r.error?.message ?? null }))).toEqual(
      saved.map((s) => ({ name: s.name, error: null })),
    );
  }, 60_000);

  it('fail with a determinism violation on a deliverPrompt that runs its activities in another order', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, 'fixtures', 'reordered-deliver-prompt.ts'),
      logger: new DefaultLogger('WARN'),
    });
    // The fixture is the activity-only delivery the v1 histories were recorded with, reordered.
    const deliveries = saved.filter((s) => s.name === 'push-answered.v1' || s.name === 'pull-answered.v1');
    expect(deliveries).toHaveLength(2);
    const results = await replay({ code }, deliveries);
    expect(results.map((r) => r.name)).toEqual(['pull-answered.v1', 'push-answered.v1']);
    for (const { error } of results) {
      expect(error).toBeInstanceOf(DeterminismViolationError);
      expect(error!.message).toMatch(
        /Nondeterminism error: Activity type of scheduled event '(pushPrompt|queueWork)' does not match .* 'recordOutcome'/,
      );
    }
  }, 60_000);
});
