/**
 * Scoring in a clean room: a fresh folder the agent never touched, holding the task's starting files,
 * overlaid with the regular files the agent changed or added, and the hidden tests from the catalogue.
 * The arena's harness runs them there, in a read-only sandbox. The workspace the agent worked in is
 * read (never followed through a link) and never run again. Whatever the workspace holds (a task file
 * turned into a folder, names that cannot be read back) makes a clean room and a score: only the
 * arena's own failures stop a scoring.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { scoreHarnessRun, type HarnessScore } from '../../domain/sandbox/harness-report';
import type { SandboxLanguage } from '../../domain/sandbox/languages';
import {
  candidateCommand,
  compilePythonHarness,
  judgeCommand,
  HARNESS_DIR,
  HARNESS_MOUNT,
  SCRATCH_MOUNT,
} from './harness';
import type { CpuGroups } from './cpu-groups';
import { interpretersInSandbox, probeOf, runIsolated, type IsolatedRun } from './isolation';
import { JudgeUids } from './judge-uids';
import { SANDBOX_WORKSPACE } from './sandbox-arguments';
import { uidRangeOf, type DiskQuota, type SandboxSettings } from './settings';
import { HIDDEN_TESTS_DIR } from './task-catalogue';
import { HostUidLocks } from './host-uid-locks';
import { mountQuota, unmountIfMounted, type Workspace, type WorkspaceFile } from './workspaces';

/** What scoring needs of a task: its files as stored, how many hidden tests it has, and their time limit. */
export interface ScoredTask {
  language: SandboxLanguage;
  files: readonly WorkspaceFile[];
  /** Paths under HIDDEN_TESTS_DIR. */
  hiddenTests: readonly WorkspaceFile[];
  testsTotal: number;
  timeoutSeconds: number;
}

export interface CleanRoomScore extends HarnessScore {
  /** Files of the agent's not carried over: past the size budget, or not regular files. */
  leftOut: string[];
}

/** Folders whose files are never carried over: the tests' own, and bytecode caches (the source is what is scored). */
const NOT_CARRIED = new Set([HIDDEN_TESTS_DIR, '__pycache__']);

/** The clean room of a session's scoring, beside its workspace: `<ARENA_SANDBOX_DIR>/<session id>-score`. */
export function cleanRoomDirOf(workspace: Pick<Workspace, 'dir'>): string {
  return `${workspace.dir}-score`;
}

/** What scoring needs of the sandbox's settings: limits, the quota, and the range the judge's uid is leased from. */
export type ScoringSettings = Pick<SandboxSettings, 'limits' | 'quota' | 'uidBase' | 'uidCount' | 'capacity'>;

type Run = (run: IsolatedRun) => ReturnType<typeof runIsolated>;

/** Where a scoring's judge gets its resources, and how its sandboxes run (tests replace `run`). */
export interface ScoringResources {
  /** The judges' uids on this host; a fresh lease per scoring. */
  judges?: JudgeUids;
  /** The host's cpu control groups, where it has them: the scoring runs in one of its own. */
  cpu?: CpuGroups;
  run?: Run;
}

/**
 * Scores the workspace: builds the clean room, runs the hidden tests on it, and removes it. The tests
 * run in a judge process of their own, in a sandbox apart as a uid leased for this scoring alone, with
 * the code under test loaded in a candidate process as the session's uid, reached only over a pipe.
 * The judge's scratch folder has the workspace's disk quota. Nothing of the session may be running
 * (the caller stopped it).
 */
export async function scoreInCleanRoom(
  workspace: Workspace,
  task: ScoredTask,
  settings: ScoringSettings,
  resources: ScoringResources = {},
): Promise<CleanRoomScore> {
  const room = cleanRoomDirOf(workspace);
  const { carried, leftOut, replaced } = await changedFiles(workspace.dir, task.files, settings.quota);
  const judge = { dir: `${room}-judge` };
  const remove = (dir: string) => fs.rm(dir, { recursive: true, force: true });
  const clear = () => Promise.all([remove(room), remove(judge.dir)]);
  await roomCleared(room);
  await clear();
  const judges = resources.judges ?? judgesOf(settings);
  const judgeUid = await judges.lease();
  const cpuGroup = await resources.cpu?.scoring(judgeUid);
  let ended = false;
  try {
    await fs.mkdir(room, { mode: 0o755 });
    const interpreters = await interpretersInSandbox(probeOf(settings));
    if (task.language === 'python' && !interpreters.python3) throw new Error('python3 is not installed on this worker');
    const nonce = randomBytes(24).toString('hex');
    // A starting file the agent turned into a folder is not put back: the folder's files stand there.
    await writeFiles(
      room,
      task.files.filter((file) => !replaced.includes(file.path)),
    );
    leftOut.push(...(await writeCarried(room, carried)));
    const scratch = await judgesScratch(path.dirname(workspace.dir), judgeUid, settings.quota);
    const report = await judgedRun(
      room,
      { ...judge, scratch, uid: judgeUid, cpuGroup },
      workspace.uid,
      task,
      settings,
      nonce,
      resources.run ?? runIsolated,
    );
    // Both sandboxes were seen to end: nothing runs as the judge's uid.
    ended = true;
    return { ...scoreHarnessRun(report, nonce, task.testsTotal), leftOut };
  } finally {
    // The score need not wait for what is left to tidy: the uid stays held until nothing of it runs,
    // and the next scoring or removal of this clean room waits for its folders to be gone.
    void judges.release(judgeUid, { ended });
    const cleared = clear()
      .then(() => resources.cpu?.close(cpuGroup))
      .catch(() => undefined);
    clearing.set(room, cleared);
    void cleared.then(() => {
      if (clearing.get(room) === cleared) clearing.delete(room);
    });
  }
}

/**
 * The scratch folder of the judge running as `uid`, in the sandbox folder: a file system of the
 * workspace's quota, so the tests' temporary files cannot fill the worker's disk, owned by the judge,
 * which the candidate may read (a test hands the code a file there). Mounted once and kept between
 * scorings (a mount and an unmount cost two processes a scoring); emptied as each scoring takes it,
 * while its uid's lease keeps every other scoring off it.
 */
export async function judgesScratch(sandboxDir: string, uid: number, quota: DiskQuota): Promise<string> {
  const dir = path.join(sandboxDir, `judge-${uid}-scratch`);
  const [here, above] = await Promise.all([fs.lstat(dir).catch(() => undefined), fs.stat(sandboxDir)]);
  if (here?.isDirectory() && here.dev !== above.dev) {
    const left = await fs.readdir(dir);
    await Promise.all(left.map((name) => fs.rm(path.join(dir, name), { recursive: true, force: true })));
    return dir;
  }
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { mode: 0o755 });
  await mountQuota({ dir, uid }, quota);
  await fs.chmod(dir, 0o755);
  return dir;
}

/**
 * Unmounts and removes the judges' scratch folders in the sandbox folder that no judge on this host
 * holds (a worker stopping, or one starting after another stopped): those held stay.
 */
export async function removeJudgesScratch(sandboxDir: string): Promise<void> {
  const locks = new HostUidLocks();
  try {
    for (const name of await fs.readdir(sandboxDir).catch(() => [] as string[])) {
      const uid = /^judge-([1-9][0-9]{0,9})-scratch$/.exec(name)?.[1];
      if (!uid || !(await locks.hold(Number(uid)))) continue;
      await unmountIfMounted(path.join(sandboxDir, name));
      await fs.rm(path.join(sandboxDir, name), { recursive: true, force: true });
      await locks.release(Number(uid));
    }
  } finally {
    await locks.releaseAll();
  }
}

/** Clean rooms whose folders are being removed after their score came back, by folder. */
const clearing = new Map<string, Promise<unknown>>();

/** Resolves once the clean room `room` left by a scoring of this process is removed (at once if none is being). */
export async function roomCleared(room: string): Promise<void> {
  await clearing.get(room);
}

const sharedJudges = new Map<string, JudgeUids>();

/** One set of judges' uids per range in this process, for scorings not given one (the catalogue's checks). */
function judgesOf(settings: ScoringSettings): JudgeUids {
  const range = uidRangeOf(settings);
  const key = JSON.stringify(range);
  let judges = sharedJudges.get(key);
  if (!judges) sharedJudges.set(key, (judges = new JudgeUids(range)));
  return judges;
}

/**
 * The hidden tests run by the judge, as its leased uid, in a sandbox showing only its own folder (the
 * hidden tests), the harness and its scratch folder; the code under test loaded by the candidate, as
 * the session's uid, in a sandbox showing the clean room read-only, the harness and the scratch
 * folder read-only. Their wires meet here, and nowhere else. Both run in the scoring's cpu group. The
 * judge's report is the score; the candidate is ended once the judge is done.
 */
async function judgedRun(
  room: string,
  judge: { dir: string; scratch: string; uid: number; cpuGroup: string | undefined },
  candidateUid: number,
  task: ScoredTask,
  settings: ScoringSettings,
  nonce: string,
  run: Run,
): Promise<string> {
  const judgeUid = judge.uid;
  await fs.mkdir(judge.dir, { mode: 0o755 });
  await writeFiles(judge.dir, task.hiddenTests);
  const interpreters = await interpretersInSandbox(probeOf(settings));
  if (task.language === 'python') await compilePythonHarness(interpreters.python3 ?? 'python3');
  const tools = { harnessDir: HARNESS_MOUNT, python: interpreters.python3 ?? 'python3', node: interpreters.node };
  const [toCandidate, toJudge] = [new PassThrough(), new PassThrough()];
  const candidateDone = new AbortController();
  const candidate = run({
    workspace: { dir: room, uid: candidateUid },
    command: candidateCommand(task.language, { ...tools, codeDir: SANDBOX_WORKSPACE, scratchDir: SCRATCH_MOUNT }),
    timeoutSeconds: task.timeoutSeconds,
    limits: settings.limits,
    view: {
      workspaceReadOnly: true,
      home: '/tmp',
      readOnlyBinds: [
        [HARNESS_DIR, HARNESS_MOUNT],
        [judge.scratch, SCRATCH_MOUNT],
      ],
    },
    wire: { from: toCandidate, to: toJudge },
    signal: candidateDone.signal,
    cpuGroup: judge.cpuGroup,
  });
  // Whatever becomes of the candidate is the judge's to count: its own end is never the score.
  candidate.catch(() => undefined);
  try {
    const judged = await run({
      workspace: { dir: judge.dir, uid: judgeUid },
      command: judgeCommand(task.language, {
        ...tools,
        testsDir: path.posix.join(SANDBOX_WORKSPACE, HIDDEN_TESTS_DIR),
        scratchDir: SCRATCH_MOUNT,
      }),
      stdin: `${nonce}\n`,
      timeoutSeconds: task.timeoutSeconds,
      limits: settings.limits,
      view: {
        workspaceReadOnly: true,
        home: '/tmp',
        readOnlyBinds: [[HARNESS_DIR, HARNESS_MOUNT]],
        readWriteBinds: [[judge.scratch, SCRATCH_MOUNT]],
      },
      wire: { from: toJudge, to: toCandidate },
      report: true,
      cpuGroup: judge.cpuGroup,
    });
    return judged.report ?? '';
  } finally {
    candidateDone.abort();
    await candidate.catch(() => undefined);
  }
}

/**
 * The agent's regular files that differ from the starting files or are new, within the quota's budget
 * (bytes and files, in name order). Links, devices and sockets are left out, never followed, and so is
 * what cannot be read back (a name that is not UTF-8); `replaced` are the starting files the agent
 * turned into folders.
 */
export async function changedFiles(
  dir: string,
  starting: readonly WorkspaceFile[],
  budget: DiskQuota,
): Promise<{ carried: WorkspaceFile[]; leftOut: string[]; replaced: string[] }> {
  const original = new Map(starting.map((file) => [file.path, Buffer.from(file.content)]));
  const carried: WorkspaceFile[] = [];
  const leftOut: string[] = [];
  const replaced: string[] = [];
  let bytes = 0;
  let files = 0;
  const walk = async (relative: string): Promise<void> => {
    const entries = await fs.readdir(path.join(dir, relative), { withFileTypes: true }).catch(() => undefined);
    if (!entries) {
      leftOut.push(`${relative} (could not be read)`);
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const name = relative ? `${relative}/${entry.name}` : entry.name;
      if (NOT_CARRIED.has(name) || NOT_CARRIED.has(entry.name)) continue;
      if (entry.isDirectory()) {
        if (original.has(name)) {
          replaced.push(name);
          leftOut.push(`${name} (the task's file, a folder in the workspace)`);
        }
        await walk(name);
        continue;
      }
      if (!entry.isFile()) {
        leftOut.push(`${name} (not a regular file)`);
        continue;
      }
      if (entry.name.endsWith('.pyc')) continue;
      const content = await readRegularFile(path.join(dir, name)).catch(() => null);
      if (content === null) {
        leftOut.push(`${name} (could not be read)`);
        continue;
      }
      if (content === undefined) {
        leftOut.push(`${name} (not a regular file)`);
        continue;
      }
      if (original.get(name)?.equals(content)) continue;
      if (bytes + content.length > budget.bytes || files + 1 > budget.files) {
        leftOut.push(`${name} (past the size budget)`);
        continue;
      }
      bytes += content.length;
      files += 1;
      carried.push({ path: name, content });
    }
  };
  await walk('');
  return { carried, leftOut, replaced };
}

/** A file's bytes, opened without following a link; undefined when it is not a regular file. */
async function readRegularFile(file: string): Promise<Buffer | undefined> {
  const handle = await fs
    .open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY)
    .catch(() => undefined);
  if (!handle) return undefined;
  try {
    return (await handle.stat()).isFile() ? await handle.readFile() : undefined;
  } finally {
    await handle.close();
  }
}

/**
 * The agent's files, over the starting ones: a starting file where the agent has a folder goes, and a
 * file that cannot be written here (a path too long for the clean room) is left out. What was left out.
 */
async function writeCarried(room: string, carried: readonly WorkspaceFile[]): Promise<string[]> {
  const leftOut: string[] = [];
  for (const file of carried) {
    try {
      const folders = file.path.split('/').slice(0, -1);
      for (let i = 1; i <= folders.length; i++) {
        const folder = path.join(room, ...folders.slice(0, i));
        const stat = await fs.lstat(folder).catch(() => undefined);
        if (stat && !stat.isDirectory()) await fs.rm(folder, { force: true });
      }
      await writeFiles(room, [file]);
    } catch {
      leftOut.push(`${file.path} (could not be written to the clean room)`);
    }
  }
  return leftOut;
}

/** Writes the files in order (a later one replaces an earlier one), folders 755 and files 644, owned by the worker. */
async function writeFiles(room: string, files: readonly WorkspaceFile[]): Promise<void> {
  for (const file of files) {
    const target = path.join(room, file.path);
    if (!target.startsWith(room + path.sep)) throw new Error(`${file.path} leads outside the clean room`);
    await fs.mkdir(path.dirname(target), { recursive: true, mode: 0o755 });
    await fs.rm(target, { recursive: true, force: true });
    await fs.writeFile(target, file.content, { mode: 0o644 });
  }
}
