/** The SDK logs every worker state change at INFO; tests only want warnings. */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { isExpectedSdkWarning } from '../../worker/runtime';

let runtimeInstalled = false;

/** Installs the process's Temporal runtime with a WARN logger, once; a runtime already made keeps its own. */
export function quietWorkerLogs(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    const standard = new DefaultLogger('WARN');
    Runtime.install({
      logger: new DefaultLogger('WARN', (entry) => {
        if (!isExpectedSdkWarning(entry.message)) standard.log(entry.level, entry.message, entry.meta);
      }),
    });
  } catch {
    // A runtime already exists in this process; its logger stays.
  }
}
