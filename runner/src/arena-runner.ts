/** The `arena-runner` executable: runs the CLI on this process's arguments and exits with its code. */
import { main } from './cli';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    const message = (err as { message?: unknown } | null)?.message;
    process.stderr.write(`[arena-runner] error: ${message ? String(message) : String(err)}\n`);
    process.exit(1);
  },
);
