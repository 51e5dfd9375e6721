/**
 * Runs one command of a coding sandbox session under bubblewrap, as the session's uid, within its limits,
 * or not at all: when the machine cannot isolate, every run fails with the reason.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SandboxLimits } from '../config';
import type { DiskQuota } from './settings';
import { spawnSandbox, type IsolatedResult, type IsolatedRun } from './sandbox-spawn';
import {
  findSandboxTools,
  missingCapabilities,
  systemLayout,
  TOOL_PACKAGES,
  userNamespacesRefused,
  type SandboxTools,
  type SystemLayout,
} from './system-layout';
import { WorkspaceLostError } from './workspace-files';
import { mountQuota, unmountIfMounted } from './workspaces';

export { WALL_TIMEOUT_EXIT_CODE, type IsolatedResult, type IsolatedRun } from './sandbox-spawn';

const PROBE_TIMEOUT_SECONDS = 30;

export type IsolationCheck = { ok: true } | { ok: false; reason: string };

/** Who the check runs its test command as, under which limits and disk quota (the configured ones). */
export interface IsolationProbe {
  uid: number;
  limits: SandboxLimits;
  quota: DiskQuota;
}

export class IsolationUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'IsolationUnavailableError';
  }
}

interface Ready {
  ok: true;
  tools: SandboxTools;
  layout: SystemLayout;
}

type Readiness = Ready | { ok: false; reason: string };
let readiness: Promise<Readiness> | undefined;
let answer: Promise<IsolationCheck> | undefined;

/** Whether commands can run isolated here; found once per process, with the first probe given (a fix on the machine needs a restart). */
export function checkIsolation(probe: IsolationProbe): Promise<IsolationCheck> {
  answer ??= ready(probe).then(publicAnswer);
  return answer;
}

/** What a starting worker says when coding sessions cannot run on it (they then end as `error`). */
export async function isolationWarning(probe: IsolationProbe): Promise<string | undefined> {
  const problem = await isolationProblem(probe);
  return problem && `coding sandbox sessions will end as error: ${problem}`;
}

/** Why this machine cannot isolate coding sessions, if it cannot. */
export async function isolationProblem(probe: IsolationProbe): Promise<string | undefined> {
  const check = await checkIsolation(probe);
  return check.ok ? undefined : check.reason;
}

/** The check itself, uncached; `toolDirs` replaces where the tools are looked for. */
export async function probeIsolation(
  probe: IsolationProbe,
  options: { toolDirs?: string[] } = {},
): Promise<IsolationCheck> {
  return publicAnswer(await examineMachine(probe, options.toolDirs));
}

/** The interpreters tasks' tests run with, as the sandbox sees them; throws IsolationUnavailableError when there is no sandbox. */
export async function interpretersInSandbox(probe: IsolationProbe): Promise<SystemLayout['interpreters']> {
  const state = await ready(probe);
  if (!state.ok) throw new IsolationUnavailableError(state.reason);
  return state.layout.interpreters;
}

/**
 * Runs `run.command` in the workspace's sandbox; throws IsolationUnavailableError, having run
 * nothing, when there is none. The machine must have been checked first (`checkIsolation`).
 */
export async function runIsolated(run: IsolatedRun): Promise<IsolatedResult> {
  const state = await ready();
  if (!state.ok) throw new IsolationUnavailableError(state.reason);
  const workspace = await fs.lstat(run.workspace.dir).catch(() => undefined);
  if (!workspace?.isDirectory()) throw new WorkspaceLostError(run.workspace);
  return spawnSandbox(state, run);
}

/**
 * The machine's readiness, examined once per process with the first caller's probe. Running a
 * command needs it examined: the probe says who the check runs as and under which limits, which
 * only the caller's settings know.
 */
async function ready(probe?: IsolationProbe): Promise<Readiness> {
  if (readiness === undefined && probe === undefined) {
    throw new Error('the machine was not checked for isolation: call checkIsolation(probe) before running commands');
  }
  readiness ??= examineMachine(probe!);
  return readiness;
}

function publicAnswer(state: Readiness): IsolationCheck {
  return state.ok ? { ok: true } : { ok: false, reason: state.reason };
}

/** The check runs as the range's last uid, which no session leases, under the configured limits. */
export function probeOf(settings: { uidBase: number; uidCount: number; limits: SandboxLimits; quota: DiskQuota }) {
  return { uid: settings.uidBase + settings.uidCount - 1, limits: settings.limits, quota: settings.quota };
}

async function examineMachine(probe: IsolationProbe, toolDirs?: string[]): Promise<Readiness> {
  try {
    return await examine(probe, toolDirs);
  } catch (err) {
    // Kept like any answer: a check that cannot even run must not let commands run.
    return unavailable(`the check failed (${err instanceof Error ? err.message : String(err)})`);
  }
}

const unavailable = (why: string) => ({ ok: false as const, reason: `isolation unavailable: ${why}` });

async function examine(probe: IsolationProbe, toolDirs?: string[]): Promise<Readiness> {
  if (process.platform !== 'linux') return unavailable('bubblewrap needs Linux');
  const tools = await findSandboxTools(toolDirs);
  if ('missing' in tools) return unavailable(`${tools.missing} is not installed (${TOOL_PACKAGES[tools.missing]})`);
  const lacking = await missingCapabilities();
  if (lacking.length > 0) {
    return unavailable(
      `the worker cannot run commands as the sessions' users (it lacks ${lacking.join(', ')}): run it as root, or grant it those capabilities`,
    );
  }
  const refused = await userNamespacesRefused();
  if (refused) return unavailable(refused);
  const state: Ready = { ok: true, tools, layout: await systemLayout() };
  // A real sandbox running node in a workspace with a quota: proves bubblewrap, the uid switch, the
  // limits and the disk quota all work together.
  const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-isolation-probe-'));
  try {
    await fs.chmod(scratch, 0o711);
    try {
      await mountQuota({ dir: scratch, uid: probe.uid }, probe.quota);
    } catch (err) {
      return unavailable(
        `workspaces cannot be given a disk quota (${(err as Error).message.replace(/^the workspace's disk quota could not be set /, '')})`,
      );
    }
    const result = await spawnSandbox(state, {
      workspace: { dir: scratch, uid: probe.uid },
      command: ['node', '-e', ''],
      timeoutSeconds: PROBE_TIMEOUT_SECONDS,
      limits: probe.limits,
    });
    if (result.exit_code === 0) return state;
    const lines = result.stderr.trim().split('\n');
    const bwrapSays = lines.find((line) => line.startsWith('bwrap:'));
    if (bwrapSays) return unavailable(`bwrap could not start a sandbox (${bwrapSays})`);
    const toolSays = lines.find((line) => /^(setpriv|prlimit):/.test(line));
    if (toolSays) return unavailable(`the sandbox's user and limits could not be set (${toolSays})`);
    return unavailable(`node does not start inside the sandbox (${lines.at(-1) || `exit code ${result.exit_code}`})`);
  } finally {
    await unmountIfMounted(scratch).catch(() => undefined);
    await fs.rm(scratch, { recursive: true, force: true });
  }
}
