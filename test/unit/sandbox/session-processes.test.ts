/** Stopping a session: every process of its uid is killed, however many and however started, and nothing else. */
import { spawn, type ChildProcess } from 'node:child_process';
import { processesOf, stopProcessesOf } from '../../../infra/sandbox/session-processes';
import { until } from '../../support/wait';

/** A process running as `uid` (through setpriv, as the sandbox starts its commands), with children of its own. */
function runAs(uid: number, script: string): ChildProcess {
  return spawn('/usr/bin/setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '/bin/sh', '-c', script], {
    stdio: 'ignore',
    detached: true,
  });
}

/** Above the sandbox's default range (200000 to 299999), so no session of another test file running at once has it. */
const UID = 399_990;

it('kills every process of the uid, children and detached ones included, and leaves other uids alone', async () => {
  if (process.getuid?.() !== 0) throw new Error('only root can start processes as another uid: run the tests as root');
  const started = [runAs(UID, 'sleep 300 & sleep 300 & (setsid sleep 300 &); sleep 300'), runAs(UID + 1, 'sleep 300')];
  try {
    await until(async () => (await processesOf(UID)).length >= 4 && (await processesOf(UID + 1)).length >= 2);
    await stopProcessesOf(UID);
    await expect(processesOf(UID)).resolves.toEqual([]);
    expect((await processesOf(UID + 1)).length).toBeGreaterThan(0);
  } finally {
    await stopProcessesOf(UID + 1);
    for (const child of started) child.kill('SIGKILL');
  }
});

it('waits while a step that may still start a process is in flight', async () => {
  let busy = true;
  const stopped = stopProcessesOf(UID, () => busy);
  const late = runAs(UID, 'sleep 300');
  // Nothing but the stop ends it (a sleep of five minutes): its end shows the stop found it while busy.
  await new Promise((resolve) => late.once('exit', resolve));
  busy = false;
  await stopped;
  await expect(processesOf(UID)).resolves.toEqual([]);
});
