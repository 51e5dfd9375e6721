/**
 * Every workspace is scored on what it holds: one whose task file became a folder, a link or nothing,
 * or that holds names the worker cannot read back, still builds its clean room (the agent's changed
 * regular files over the starting ones) and gets a score, with what was not carried said, rather than
 * failing the scoring as if the sandbox had.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SandboxSettings } from '../../../infra/config';
import { cleanRoomDirOf, roomCleared, scoreInCleanRoom, type ScoredTask } from '../../../infra/sandbox/clean-room';
import type { IsolatedRun } from '../../../infra/sandbox/isolation';
import { removeSandboxDir, removeSandboxScratch, sandboxScratch } from '../../sandbox/support';

let settings: SandboxSettings;
let scratch: string;
let workspace: { sessionId: number; dir: string; uid: number };
beforeAll(async () => {
  settings = await sandboxScratch();
});
beforeEach(async () => {
  scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-rooms-'));
  workspace = { sessionId: 17, dir: path.join(scratch, '17'), uid: settings.uidBase };
  await fs.mkdir(path.join(workspace.dir, 'lib'), { recursive: true });
  await fs.writeFile(path.join(workspace.dir, 'app.py'), 'print(1)\n');
  await fs.writeFile(path.join(workspace.dir, 'lib', 'util.py'), 'X = 1\n');
});
// The judge's scratch file system stays mounted in the folder between scorings.
afterEach(() => removeSandboxDir(scratch));
afterAll(() => removeSandboxScratch(settings));

const task: ScoredTask = {
  language: 'python',
  files: [
    { path: 'app.py', content: 'print(1)\n' },
    { path: 'lib/util.py', content: 'X = 1\n' },
  ],
  hiddenTests: [{ path: '.hidden-tests/test_app.py', content: 'import unittest\n' }],
  testsTotal: 1,
  timeoutSeconds: 10,
};

/** Scores the workspace with a judge that passes its one test, and the clean room's files as the candidate saw them. */
async function scored() {
  let room: string[] = [];
  const run = async (isolated: IsolatedRun) => {
    if (!isolated.report) {
      room = (await fs.readdir(isolated.workspace.dir, { recursive: true })).map(String).sort();
      return { exit_code: 0, stdout: '', stderr: '', truncated: false, duration_ms: 0 };
    }
    const nonce = String(isolated.stdin).trim();
    const report = {
      nonce,
      harness: 'python-judge',
      tests: [{ id: 'test_app.T.test', outcome: 'passed' }],
      tampered: null,
    };
    return {
      exit_code: 0,
      stdout: '',
      stderr: '',
      truncated: false,
      duration_ms: 0,
      report: `${JSON.stringify(report)}\n`,
    };
  };
  const score = await scoreInCleanRoom(workspace, task, settings, { run });
  // Its folders are removed after the score comes back (the scratch folder's file system among them).
  await roomCleared(cleanRoomDirOf(workspace));
  return { score, room };
}

it("scores a workspace whose task file became a folder on the agent's files there", async () => {
  await fs.rm(path.join(workspace.dir, 'app.py'));
  await fs.mkdir(path.join(workspace.dir, 'app.py'));
  await fs.writeFile(path.join(workspace.dir, 'app.py', 'inner.py'), 'print(2)\n');
  const { score, room } = await scored();
  expect(score).toMatchObject({
    passed: 1,
    total: 1,
    leftOut: ["app.py (the task's file, a folder in the workspace)"],
  });
  expect(room).toEqual(['app.py', 'app.py/inner.py', 'lib', 'lib/util.py']);
  expect((await fs.readFile(path.join(workspace.dir, 'app.py', 'inner.py'), 'utf8')).trim()).toBe('print(2)');
});

it('scores a workspace whose task file became a link, or is gone, on the starting file', async () => {
  await fs.rm(path.join(workspace.dir, 'app.py'));
  await fs.symlink('/etc/shadow', path.join(workspace.dir, 'app.py'));
  await fs.rm(path.join(workspace.dir, 'lib', 'util.py'));
  const { score, room } = await scored();
  expect(score).toMatchObject({ passed: 1, total: 1, leftOut: ['app.py (not a regular file)'] });
  expect(room).toEqual(['app.py', 'lib', 'lib/util.py']);
});

it('scores a workspace holding names the worker cannot read back, leaving them out', async () => {
  // A folder whose name is not UTF-8 (`mkdir $'\xff'`): it cannot be named again from the name read.
  const odd = Buffer.concat([Buffer.from(`${workspace.dir}/`), Buffer.from([0xff])]);
  await fs.mkdir(odd);
  await fs.writeFile(Buffer.concat([odd, Buffer.from('/x.py')]), 'Y = 2\n');
  await fs.writeFile(path.join(workspace.dir, 'new.py'), 'Z = 3\n');
  const { score, room } = await scored();
  expect(score).toMatchObject({ passed: 1, total: 1, leftOut: ['\ufffd (could not be read)'] });
  expect(room).toEqual(['app.py', 'lib', 'lib/util.py', 'new.py']);
});
