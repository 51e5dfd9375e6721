/**
 * The arena's own test harness (harness/): how a task's hidden tests run, from outside the workspace,
 * with nothing of the workspace on the interpreter's start-up path, reporting per test on a descriptor
 * of their own. Scoring runs it in a read-only sandbox; the task catalogue's checks run it directly.
 */
import path from 'node:path';
import type { SandboxLanguage } from '../../domain/sandbox/languages';
import { REPORT_FD } from './sandbox-arguments';

/** The harness's files: `harness/` beside this module, which the build copies to dist/ with it. */
export const HARNESS_DIR = path.join(__dirname, 'harness');
/** Where the scoring sandbox shows the harness, read-only. */
export const HARNESS_MOUNT = '/opt/arena-harness';

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

/** The command that runs a task's hidden tests; the run's nonce goes on its stdin. */
export function harnessCommand(language: SandboxLanguage, paths: HarnessPaths): string[] {
  if (language === 'python') {
    // -I: no PYTHON* variables, no user site-packages, no script folder on the path; -S: no site
    // (no .pth files, sitecustomize or usercustomize); -B: no bytecode written.
    return [
      paths.python,
      '-I',
      '-S',
      '-B',
      path.posix.join(paths.harnessDir, 'python', 'run_tests.py'),
      paths.testsDir,
      paths.codeDir,
      String(REPORT_FD),
    ];
  }
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
