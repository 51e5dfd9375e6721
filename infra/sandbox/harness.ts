/**
 * The arena's own test harness (harness/): how a task's hidden tests run, from outside the workspace,
 * with nothing of the workspace on the interpreter's start-up path, reporting per test on a descriptor
 * of their own. Scoring runs it in a read-only sandbox; the task catalogue's checks run it directly.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { SandboxLanguage } from '../../domain/sandbox/languages';
import { REPORT_FD, WIRE_IN_FD, WIRE_OUT_FD } from './sandbox-arguments';

/** The harness's files: `harness/` beside this module, which the build copies to dist/ with it. */
export const HARNESS_DIR = path.join(__dirname, 'harness');
/** Where the scoring sandbox shows the harness, read-only. */
export const HARNESS_MOUNT = '/opt/arena-harness';
/** Where both sandboxes of a judged run show the judge's scratch folder: the judge writes it, the candidate reads it. */
export const SCRATCH_MOUNT = '/arena-scratch';

let bytecode: Promise<void> | undefined;

/**
 * Compiles the Python harness's modules to bytecode beside them, once per process, so neither side of
 * a judged run compiles them again (about 6 ms each); the sandboxes show them read-only. Where the
 * harness's folder is not writable they are compiled at each run, as before.
 */
export function compilePythonHarness(python: string): Promise<void> {
  bytecode ??= promisify(execFile)(python, ['-I', '-m', 'compileall', '-q', path.join(HARNESS_DIR, 'python')], {
    timeout: 30_000,
  }).then(
    () => undefined,
    () => undefined,
  );
  return bytecode;
}

/** Whether a language's hidden tests run in a judge process apart from the code under test. */
export function judgedLanguage(language: SandboxLanguage): boolean {
  return language === 'python';
}

export interface JudgePaths {
  harnessDir: string;
  /** The hidden tests, in the judge's own folder (never beside the code under test). */
  testsDir: string;
  /** Where the tests make their temporary files, which the candidate can read (a file a test hands the code). */
  scratchDir: string;
  python: string;
  node: string;
}

export interface CandidatePaths {
  harnessDir: string;
  /** The code under test: the clean room. */
  codeDir: string;
  python: string;
  node: string;
}

/** The judge: runs the hidden tests on the code it reaches over the wire, reports on REPORT_FD; the nonce goes on its stdin. */
export function judgeCommand(language: SandboxLanguage, paths: JudgePaths): string[] {
  if (language !== 'python') throw new Error(`no judge for ${language} tasks`);
  return [
    paths.python,
    '-I',
    '-S',
    '-B',
    path.posix.join(paths.harnessDir, 'python', 'judge.py'),
    paths.testsDir,
    String(REPORT_FD),
    String(WIRE_IN_FD),
    String(WIRE_OUT_FD),
    paths.scratchDir,
  ];
}

/** The candidate: loads the code under test and answers the judge over the wire. */
export function candidateCommand(language: SandboxLanguage, paths: CandidatePaths): string[] {
  if (language !== 'python') throw new Error(`no candidate for ${language} tasks`);
  return [
    paths.python,
    '-I',
    '-S',
    '-B',
    path.posix.join(paths.harnessDir, 'python', 'candidate.py'),
    paths.codeDir,
    String(WIRE_IN_FD),
    String(WIRE_OUT_FD),
  ];
}

export interface HarnessPaths {
  /** The harness's folder, as the run sees it. */
  harnessDir: string;
  /** The code under test: the folder the hidden tests import it from. */
  codeDir: string;
  /** The hidden tests, inside `codeDir` (JavaScript tests import the code by a relative path). */
  testsDir: string;
  /** The interpreters, by absolute path: never a `python3` or `node` the workspace could put first on a PATH. */
  python: string;
  node: string;
}

/** Node's permission model: `--permission` from Node 22 on, `--experimental-permission` on Node 20. */
function nodePermissionFlag(): string {
  return process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
}

/**
 * The command that runs a JavaScript task's hidden tests in the code's own process (a judged
 * language's run in a judge apart: judgeCommand); the run's nonce goes on its stdin.
 */
export function harnessCommand(language: SandboxLanguage, paths: HarnessPaths): string[] {
  if (judgedLanguage(language)) throw new Error(`${language} tasks are judged from another process: judgeCommand`);
  const dir = (folder: string) => (folder.endsWith('/') ? folder : `${folder}/`);
  return [
    paths.node,
    // The code under test may read its own folder and the harness, write only to /tmp, and has no
    // inspector, child processes, workers or native add-ons.
    nodePermissionFlag(),
    `--allow-fs-read=${dir(paths.codeDir)}`,
    `--allow-fs-read=${dir(paths.harnessDir)}`,
    '--allow-fs-write=/tmp/',
    `--test-reporter=${path.posix.join(paths.harnessDir, 'node', 'report.mjs')}`,
    '--test-reporter-destination=stdout',
    path.posix.join(paths.harnessDir, 'node', 'run.mjs'),
    paths.testsDir,
    String(REPORT_FD),
  ];
}
