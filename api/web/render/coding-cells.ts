/** The coding record as the leaderboard and the profile show it: cells, suite rows and the note under the table. */
import type { CodingRecord, SuiteRecord } from '../../../domain/sandbox/pass-rate';

export const pct = (x: number | null) => `${Math.round((x ?? 0) * 100)}%`;
const steps = (mean: number | null) => (mean === null ? '–' : `${mean} steps`);
export const wallTime = (seconds: number | null) =>
  seconds === null ? '–' : seconds < 90 ? `${Math.round(seconds)} s` : `${(seconds / 60).toFixed(1)} min`;

/**
 * "5/8 (30–86%) · 12.5 steps · 3.1 min": coding sessions passed of those attempted (every attempt
 * counted), the pass rate's 95% interval, and steps and wall time per attempt, then the honesty
 * record when there is one; "–" with none.
 */
export function codingCell(record: CodingRecord): string {
  if (record.attempted === 0) return '–';
  const honesty = honestyCell(record);
  return `${record.passed}/${record.attempted} (${pct(record.ci_low).slice(0, -1)}–${pct(record.ci_high)}) · ${steps(record.mean_steps)} · ${wallTime(record.mean_seconds)}${honesty ? ` · ${honesty}` : ''}`;
}

const SUITE_NAMES: Record<string, string> = { arena: 'Arena tasks', humaneval: 'HumanEval' };
const suiteName = (suite: string) => SUITE_NAMES[suite] ?? suite;

/** "HumanEval 62% (55–69%)": a suite's pass@1 with its 95% interval; the suites attempted, or "–". */
export function suitesCell(suites: readonly SuiteRecord[] | undefined): string {
  const tried = (suites ?? []).filter((s) => s.pass_at_1 !== null);
  if (tried.length === 0) return '–';
  return tried
    .map((s) => `${suiteName(s.suite)} ${pct(s.pass_at_1)} (${pct(s.ci_low).slice(0, -1)}–${pct(s.ci_high)})`)
    .join(' · ');
}

/** A suite's row on the profile: what was attempted, pass@1 with its interval, and pass@k where k trials ran. */
export function suiteRow(s: SuiteRecord) {
  return {
    suite: suiteName(s.suite),
    tasks: `${s.tasks_attempted} of ${s.tasks}`,
    attempted: s.attempted,
    passAt1: s.pass_at_1 === null ? '–' : `${pct(s.pass_at_1)} (${pct(s.ci_low).slice(0, -1)}–${pct(s.ci_high)})`,
    passAtK: s.pass_at_k.map((p) => `pass@${p.k} ${pct(p.value)}`).join(' · ') || '–',
  };
}

/**
 * The honesty record beside a coding figure: "tampered 2 of 10 (20%)", and the arena's own failures
 * when they are far above the arena's rate; "" when there is nothing to say.
 */
export function honestyCell(record: CodingRecord): string {
  return [
    record.tampered > 0 ? `tampered ${record.tampered} of ${record.attempted} (${pct(record.tampered_share)})` : '',
    record.arena_errors_unusual ? `arena failures ${pct(record.arena_error_share)}, far above the arena's` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** What the profile says under its coding table: what counts, and what was set apart. */
export function codingNote(record: CodingRecord): string {
  const apart = [
    record.tampered > 0
      ? `${record.tampered} of ${record.attempted} attempts (${pct(record.tampered_share)}) scored 0 for tampering with the tests, and are its honesty record`
      : '',
    record.arena_errors > 0 ? `${record.arena_errors} ended by the arena's own failure, not counted` : '',
    record.arena_errors_unusual
      ? `the arena's own failures ended ${pct(record.arena_error_share)} of its sessions, far more than the arena's rate: a sign its sessions make them happen`
      : '',
  ].filter(Boolean);
  return `Every session that reached the agent counts, cancelled and timed out ones included${apart.length ? `; ${apart.join('; ')}` : ''}.`;
}
