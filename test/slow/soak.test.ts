/**
 * The soak's own checks, short: two minutes of the mixed load with one fault of each kind (the
 * worker SIGKILLed and restarted, the API restarted, PostgreSQL and then Temporal stopped for
 * 20 s), no delivery lost or recorded or sent twice, and no vote counted twice. The stack is the bench's, its own, from
 * the build; `npm run soak` runs the same function for longer.
 *
 * In the slow set. Each fault has a focused test in `npm test`: test/hardening/worker-kill.part.ts,
 * test/hardening/api-restart.part.ts, test/hardening/database-outage.part.ts and
 * test/api/temporal-down.part.ts.
 */
import type { BenchStack } from '../../bench/stack/stack';
import { runSoak } from '../../bench/soak/soak';
import type { SoakResult } from '../../bench/soak/report';
import { FAILED_VERDICTS } from '../../bench/soak/settle';
import { BUILD_TIMEOUT_MS, ensureBuilt } from '../support/build';

let stack: BenchStack | undefined;
const lines: string[] = [];

beforeAll(async () => {
  await ensureBuilt();
}, BUILD_TIMEOUT_MS);

// runSoak stops its stack itself; this is for a run cut short by the test's timeout.
afterAll(async () => {
  await stack?.stop();
}, 60_000);

it('loses and duplicates no delivery through a worker kill, an API restart and PostgreSQL and Temporal outages', async () => {
  let result: SoakResult;
  try {
    ({ result } = await runSoak({
      minutes: 2,
      rounds: 1,
      sampleMs: 2_000,
      // Each open delivery is waited for up to its own bound (20 s deadline: 100 s past it); this caps the whole.
      settleMs: 150_000,
      build: false,
      log: (line) => lines.push(line),
      onStack: (s) => (stack = s),
    }));
  } catch (err) {
    throw new Error(`${err instanceof Error ? err.message : String(err)}\n${lines.join('\n')}`);
  }

  expect(result.faults.map((f) => ({ kind: f.kind, error: f.error }))).toEqual([
    { kind: 'worker-kill', error: undefined },
    { kind: 'api-restart', error: undefined },
    { kind: 'postgres-stop', error: undefined },
    { kind: 'temporal-stop', error: undefined },
  ]);
  const kinds = result.deliveries.map((d) => d.kind);
  for (const mode of ['push', 'pull'])
    for (const behaviour of ['fast', 'slow', 'failing', 'never'])
      expect(kinds).toContain(`sandbox ${mode} ${behaviour}`);
  expect(kinds).toEqual(expect.arrayContaining(['gym push', 'gym pull', 'main push', 'main pull', 'coding pull']));
  // Coding sessions were worked and scored (a worker lost mid-session ends one as an error instead).
  const coding = result.deliveries.find((d) => d.kind === 'coding pull')!.outcomes;
  expect((coding.passed ?? 0) + (coding.failed ?? 0)).toBeGreaterThan(0);
  // Every delivery open once the load stopped was followed through its workflow: none lost (no
  // workflow, or one that closed with its row open) or overdue (still running past its deadline and
  // the retry policy's bound). Slow ones, ended within the bound, are in the log and the report.
  const failed = result.settle.deliveries.filter((d) => FAILED_VERDICTS.includes(d.verdict));
  if (failed.length > 0)
    throw new Error(`settling: ${failed.map((d) => `${d.kind}-${d.id} ${d.verdict}`).join(', ')}\n${lines.join('\n')}`);
  // Slow ones are reported with the test's output.
  process.stdout.write(`${lines.filter((l) => /^(slow:|settled in)/.test(l)).join('\n')}\n`);
  // A lost delivery fails with the run's log, which describes each delivery left open.
  const lost = result.deliveries.filter((d) => d.lost > 0);
  if (lost.length > 0)
    throw new Error(`lost: ${lost.map((d) => `${d.kind} ${d.lost}`).join(', ')}\n${lines.join('\n')}`);
  for (const d of result.deliveries) {
    expect(d.started).toBeGreaterThan(0);
    expect({ kind: d.kind, lost: d.lost, recordedTwice: d.recordedTwice, sentTwice: d.sentTwice }).toEqual({
      kind: d.kind,
      lost: 0,
      recordedTwice: 0,
      sentTwice: 0,
    });
  }
  // Votes landed, through the faults, and each counted once.
  const votes = result.votes;
  expect(votes.liveBattlesStarted).toBeGreaterThan(0);
  expect(votes.acknowledged).toBeGreaterThan(0);
  expect(votes.battlesVoted).toBeGreaterThanOrEqual(votes.acknowledged);
  expect(votes.battlesVoted).toBeLessThanOrEqual(votes.acknowledged + votes.unanswered);
  expect({ changesNotTwo: votes.changesNotTwo, changesWithoutVote: votes.changesWithoutVote }).toEqual({
    changesNotTwo: 0,
    changesWithoutVote: 0,
  });
  expect(votes.eloMismatches).toBe(0);
  // Storage per table and per data-folder entry, the sessions among them.
  expect(result.storage.tables.find((t) => t.table === 'sessions')?.rows).toBe(result.storage.deliveries);
  expect(result.storage.folders.length).toBeGreaterThan(1);
  // The run measured what it says it did: memory samples and requests from both ends of the load.
  expect(result.memory.samples.length).toBeGreaterThan(10);
  for (const l of result.latency.filter((r) => r.kind.startsWith('sandbox')))
    expect(l.first.count * l.last.count).toBeGreaterThan(0);
}, 390_000);
