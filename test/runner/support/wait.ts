/** Waiting on conditions in runner tests, and agent commands written as small Node scripts. */
import fs from 'node:fs';
import type { AgentCommand } from '../../../runner/src/adapter';

/** An agent command that runs `script` in a fresh Node process. */
export function nodeScript(script: string): AgentCommand {
  return { command: process.execPath, args: ['-e', script] };
}

/** Whether a process still runs; a zombie waiting to be reaped counts as gone. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    // /proc/<pid>/stat: "pid (comm) state ..."; the comm may contain spaces, the state follows the last ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return process.platform !== 'linux';
  }
}
