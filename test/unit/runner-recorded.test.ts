/** The runner's line for a posted result says what the arena recorded, a coding session's status included. */
import { describeRecorded } from '../../runner/src/pull';

const ok = { ok: true as const, response: 'done' };
const failed = { ok: false as const, error: 'exit 1' };

describe('describeRecorded', () => {
  it('says a prompt was answered when the arena recorded it so', () => {
    expect(describeRecorded(ok, 840, { status: 'answered', error: null }, false)).toBe('answered in 840 ms');
    expect(describeRecorded(failed, 12, { status: 'error', error: 'exit 1' }, false)).toBe('error after 12 ms: exit 1');
    // An arena that does not say: what the command did.
    expect(describeRecorded(ok, 5, {}, false)).toBe('answered in 5 ms');
  });

  it('never says "answered" alone for a coding session: it gives the session its own status', () => {
    expect(describeRecorded(ok, 900, { status: 'error', error: 'workspace lost' }, true)).toBe(
      'the command finished after 900 ms; the session ended as an error: workspace lost',
    );
    expect(describeRecorded(ok, 900, { status: 'passed', error: null }, true)).toBe(
      'the command finished after 900 ms; the session passed',
    );
    expect(describeRecorded(failed, 30, { status: 'running', error: null }, true)).toBe(
      'the command failed after 30 ms; the session goes on until it is submitted or its deadline passes',
    );
    expect(describeRecorded(ok, 1, {}, true)).toBe('the command finished after 1 ms; its summary is recorded');
  });
});
