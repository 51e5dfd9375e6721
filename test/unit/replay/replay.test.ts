/**
 * Replays the saved histories of test/histories/ against the current workflow code, so a change
 * that would break deliveries, gyms, dispatch steps and votes already running (a non-deterministic change) fails here.
 * Recording them: see test/histories/record-histories.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { historyFromJson } from '../../../infra/temporal/history-json';
import { arenaWorkflowBundle } from '../../support/time-skipping';

const HISTORIES_DIR = path.resolve(__dirname, '..', '..', 'histories');

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
  // An A2A agent's task followed to its answer, and one cancelled at its deadline (the a2a-mode patch).
  'a2a-answered',
  'a2a-deadline',
  // A dispatch step and a vote. Deliveries, dispatch steps and votes keep no history of an earlier
  // version: their patches are retired (docs/decisions.md, "Workflow versions").
  'dispatch-arena',
  'record-vote',
  // A coding session worked in pull mode and submitted, scored in a clean room (the coding-clean-room
  // patch) with steps its client may cancel (the coding-step-cancel patch); one from before that
  // patch, and one scored in its workspace, from before the clean room.
  'coding-session-pull',
  'coding-session-pull.v2',
  'coding-session-pull.v1',
  // A coding session of an A2A agent, its prompt sent as a message (the coding-a2a patch).
  'coding-session-a2a',
  // A benchmark run of one task, twice (its sessions children of it).
  'run-benchmark',
  // A run of the hourly retention that also deletes settled work items (the retention-work-items
  // patch), and one from before.
  'apply-retention',
  'apply-retention.v1',
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
    expect(saved.length).toBeGreaterThanOrEqual(SCENARIOS.length);
    const results = await replay(await arenaWorkflowBundle(), saved);
    expect(results.map((r) => ({ name: r.name, error: r.error?.message ?? null }))).toEqual(
      saved.map((s) => ({ name: s.name, error: null })),
    );
  }, 120_000);

  it('fail with a determinism violation on a deliverPrompt that runs its activities in another order', async () => {
    const { code } = await bundleWorkflowCode({
      workflowsPath: path.join(__dirname, 'fixtures', 'reordered-deliver-prompt.ts'),
      logger: new DefaultLogger('WARN'),
    });
    // The fixture takes the current path of each mode, with the outcome recorded first.
    const deliveries = saved.filter((s) => s.name === 'push-answered' || s.name === 'pull-answered');
    expect(deliveries).toHaveLength(2);
    const results = await replay({ code }, deliveries);
    expect(results.map((r) => r.name)).toEqual(['pull-answered', 'push-answered']);
    for (const { name, error } of results) {
      expect(error).toBeInstanceOf(DeterminismViolationError);
      expect({ name, message: error!.message }).toEqual({
        name,
        message: expect.stringMatching(
          /Nondeterminism error: Activity type of (scheduled event|recorded marker) '(deliverPush|queueWork)' does not match .* 'recordOutcome'/,
        ),
      });
    }
  }, 120_000);
});
