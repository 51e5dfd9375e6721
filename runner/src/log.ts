/** The runner's log: one line per event on stderr, so stdout stays free for whoever wraps the runner. */

export type Log = (line: string) => void;

export const stderrLog: Log = (line) => {
  process.stderr.write(`[arena-runner] ${line}\n`);
};
