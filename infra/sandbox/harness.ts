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

/** Whether a language's hidden tests run in a judge process apart from the code under test: all of them now. */
export function judgedLanguage(language: SandboxLanguage): boolean {
  return language === 'python' || language === 'javascript';
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
  /** The judge's scratch folder, which the candidate may read (JavaScript's permission model names it). */
  scratchDir: string;
  python: string;
  node: string;
}

/** Node's permission model: `--permission` from Node 22 on, `--experimental-permission` on Node 20. */
function nodePermissionFlag(): string {
  return process.allowedNodeEnvironmentFlags.has('--permission') ? '--permission' : '--experimental-permission';
}

const folder = (dir: string) => (dir.endsWith('/') ? dir : `${dir}/`);

/** The judge: runs the hidden tests on the code it reaches over the wire, reports on REPORT_FD; the nonce goes on its stdin. */
export function judgeCommand(language: SandboxLanguage, paths: JudgePaths): string[] {
  const wire = [String(REPORT_FD), String(WIRE_IN_FD), String(WIRE_OUT_FD), paths.scratchDir];
  if (language === 'javascript') {
    return [
      paths.node,
      // The judge reads its tests, the harness and its scratch folder, writes only the scratch folder,
      // and starts one worker thread (the wire's reader). It links the ES module tests itself (vm modules).
      nodePermissionFlag(),
      `--allow-fs-read=${folder(paths.testsDir)}`,
      `--allow-fs-read=${folder(paths.harnessDir)}`,
      `--allow-fs-read=${folder(paths.scratchDir)}`,
      `--allow-fs-write=${folder(paths.scratchDir)}`,
      '--allow-worker',
      '--experimental-vm-modules',
      '--no-warnings',
      `--test-reporter=${path.posix.join(paths.harnessDir, 'node', 'judge-report.mjs')}`,
      '--test-reporter-destination=stdout',
      path.posix.join(paths.harnessDir, 'node', 'judge.mjs'),
      paths.testsDir,
      ...wire,
    ];
  }
  return [
    paths.python,
    '-I',
    '-S',
    '-B',
    path.posix.join(paths.harnessDir, 'python', 'judge.py'),
    paths.testsDir,
    ...wire,
  ];
}

/** The candidate: loads the code under test and answers the judge over the wire. */
export function candidateCommand(language: SandboxLanguage, paths: CandidatePaths): string[] {
  if (language === 'javascript') {
    return [
      paths.node,
      // The code under test may read its own folder, the harness and the judge's scratch folder, write
      // only to /tmp, and has no inspector, child processes or native add-ons; workers it may start
      // (the wire's reader is one), in this process, which holds nothing of the judge's.
      nodePermissionFlag(),
      `--allow-fs-read=${folder(paths.codeDir)}`,
      `--allow-fs-read=${folder(paths.harnessDir)}`,
      `--allow-fs-read=${folder(paths.scratchDir)}`,
      '--allow-fs-write=/tmp/',
      '--allow-worker',
      '--no-warnings',
      path.posix.join(paths.harnessDir, 'node', 'candidate.mjs'),
      paths.codeDir,
      String(WIRE_IN_FD),
      String(WIRE_OUT_FD),
    ];
  }
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
