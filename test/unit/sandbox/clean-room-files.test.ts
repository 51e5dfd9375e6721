/** What the clean room carries over from a workspace: the regular files the agent changed or added, within a budget. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { changedFiles } from '../../../infra/sandbox/clean-room';

let dir: string;
const starting = [
  { path: 'app.py', content: 'print(1)\n' },
  { path: 'lib/util.py', content: 'X = 1\n' },
];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-clean-room-'));
  for (const file of starting) {
    await fs.mkdir(path.dirname(path.join(dir, file.path)), { recursive: true });
    await fs.writeFile(path.join(dir, file.path), file.content);
  }
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

const budget = { bytes: 1024 * 1024, files: 100 };
const names = async (b = budget) => {
  const { carried, leftOut } = await changedFiles(dir, starting, b);
  return { carried: carried.map((f) => f.path), leftOut };
};

it('carries the files changed or added, not those left as they started', async () => {
  await fs.writeFile(path.join(dir, 'app.py'), 'print(2)\n');
  await fs.writeFile(path.join(dir, 'new.py'), 'Y = 2\n');
  await expect(names()).resolves.toEqual({ carried: ['app.py', 'new.py'], leftOut: [] });
});

it('leaves out links (never followed), the hidden tests folder and bytecode caches', async () => {
  await fs.symlink('/etc/shadow', path.join(dir, 'notes.txt'));
  await fs.symlink('/', path.join(dir, 'everything'));
  await fs.mkdir(path.join(dir, '.hidden-tests'));
  await fs.writeFile(path.join(dir, '.hidden-tests', 'test_x.py'), 'planted\n');
  await fs.mkdir(path.join(dir, '__pycache__'));
  await fs.writeFile(path.join(dir, '__pycache__', 'app.cpython-311.pyc'), 'bytes');
  await fs.writeFile(path.join(dir, 'other.pyc'), 'bytes');
  await expect(names()).resolves.toEqual({
    carried: [],
    leftOut: ['everything (not a regular file)', 'notes.txt (not a regular file)'],
  });
});

it('stops at the budget, in bytes and in files, and says what it left out', async () => {
  await fs.writeFile(path.join(dir, 'a.txt'), 'x'.repeat(600));
  await fs.writeFile(path.join(dir, 'b.txt'), 'x'.repeat(600));
  await fs.writeFile(path.join(dir, 'c.txt'), 'x');
  await expect(names({ bytes: 1000, files: 100 })).resolves.toEqual({
    carried: ['a.txt', 'c.txt'],
    leftOut: ['b.txt (past the size budget)'],
  });
  await expect(names({ bytes: 10_000, files: 1 })).resolves.toEqual({
    carried: ['a.txt'],
    leftOut: ['b.txt (past the size budget)', 'c.txt (past the size budget)'],
  });
});
