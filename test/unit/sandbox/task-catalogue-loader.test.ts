/** Loading the coding-task catalogue: what a task folder holds, and a clear refusal that names a broken task. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../infra/config';
import { DEFAULT_SANDBOX_TASKS_DIR, loadTaskCatalogue } from '../../../infra/sandbox/task-catalogue';

let root: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-tasks-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const MANIFEST = {
  id: 'python/sum-list',
  title: 'sum_list ignores the last number',
  language: 'python',
  tests_total: 2,
  limits: { test_timeout_seconds: 60 },
};

/** Writes a task folder under the temporary catalogue; `files` maps a path inside it to its text. */
function writeTask(folder: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(root, folder, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  }
}

function validTask(manifest: object = MANIFEST): Record<string, string> {
  return {
    'task.json': JSON.stringify(manifest),
    'statement.md': 'sum_list([1, 2, 3]) returns 3 instead of 6.\n',
    'files/numbers.py': 'def sum_list(xs):\n    return sum(xs[:-1])\n',
    'files/tests/test_numbers.py': 'import unittest\n',
    'tests/test_hidden_numbers.py': 'import unittest\n',
    'solution/numbers.py': 'def sum_list(xs):\n    return sum(xs)\n',
  };
}

describe('loadTaskCatalogue', () => {
  it('reads each task: manifest, statement, starting files, hidden tests and solution', async () => {
    writeTask('python/sum-list', validTask());
    const [task, ...others] = loadTaskCatalogue(root);
    expect(others).toEqual([]);
    expect(task?.id).toBe('python/sum-list');
    expect(task?.manifest).toEqual(MANIFEST);
    expect(task?.statement).toBe('sum_list([1, 2, 3]) returns 3 instead of 6.\n');
    expect(task?.paths.files).toBe(path.join(root, 'python', 'sum-list', 'files'));
    const starting = await task?.readStartingFiles();
    expect(starting?.map((f) => [f.path, f.content.toString()])).toEqual([
      ['numbers.py', 'def sum_list(xs):\n    return sum(xs[:-1])\n'],
      ['tests/test_numbers.py', 'import unittest\n'],
    ]);
    expect((await task?.readHiddenTests())?.map((f) => f.path)).toEqual(['test_hidden_numbers.py']);
    expect((await task?.readSolution())?.map((f) => f.content.toString())).toEqual([
      'def sum_list(xs):\n    return sum(xs)\n',
    ]);
  });

  it('lists tasks by id and skips files beside the language folders', () => {
    writeTask('python/sum-list', validTask());
    writeTask(
      'javascript/add',
      validTask({
        ...MANIFEST,
        id: 'javascript/add',
        language: 'javascript',
      }),
    );
    writeTask('.', { 'README.md': '# Tasks\n' });
    expect(loadTaskCatalogue(root).map((t) => t.id)).toEqual(['javascript/add', 'python/sum-list']);
  });

  it('names the task and the field of a manifest that does not fit', () => {
    const { tests_total: _dropped, ...withoutTotal } = MANIFEST;
    writeTask('python/sum-list', validTask(withoutTotal));
    expect(() => loadTaskCatalogue(root)).toThrow(/sandbox task python\/sum-list: task\.json: tests_total: /);
  });

  it('refuses unknown manifest fields, so a misspelt limit is not silently ignored', () => {
    writeTask('python/sum-list', validTask({ ...MANIFEST, limits: { test_timeout_secs: 60 } }));
    expect(() => loadTaskCatalogue(root)).toThrow(/sandbox task python\/sum-list: task\.json: limits/);
  });

  it('refuses a manifest that is not JSON', () => {
    writeTask('python/sum-list', { ...validTask(), 'task.json': '{"id": "python/sum-list",' });
    expect(() => loadTaskCatalogue(root)).toThrow(/sandbox task python\/sum-list: task\.json is not valid JSON/);
  });

  it('refuses an id or a language that is not its folder', () => {
    writeTask('python/sum-list', validTask({ ...MANIFEST, id: 'python/sum-all' }));
    expect(() => loadTaskCatalogue(root)).toThrow(
      'sandbox task python/sum-list: task.json: id "python/sum-all" must be its folder, "python/sum-list"',
    );
    fs.rmSync(path.join(root, 'python'), { recursive: true });
    writeTask('javascript/sum-list', validTask({ ...MANIFEST, id: 'javascript/sum-list' }));
    expect(() => loadTaskCatalogue(root)).toThrow(
      'sandbox task javascript/sum-list: task.json: language "python" must be its folder\'s, "javascript"',
    );
  });

  it('refuses a test command, which the harness made obsolete, saying so', () => {
    writeTask('python/sum-list', validTask({ ...MANIFEST, test_command: ['python3', '-m', 'unittest'] }));
    expect(() => loadTaskCatalogue(root)).toThrow(
      "sandbox task python/sum-list: task.json: test_command is no longer used: the arena's own harness runs the hidden tests (remove it)",
    );
  });

  it('refuses a task without a statement, hidden tests, starting files or solution', () => {
    const parts = ['statement.md', 'tests/test_hidden_numbers.py', 'files/numbers.py', 'solution/numbers.py'];
    const expected = [
      /statement\.md is missing/,
      /tests\/ is missing or empty/,
      /files\/ is missing or empty/,
      /solution\/ is missing or empty/,
    ];
    parts.forEach((part, i) => {
      fs.rmSync(path.join(root, 'python'), { recursive: true, force: true });
      const files = validTask();
      delete files[part];
      if (part === 'files/numbers.py') delete files['files/tests/test_numbers.py'];
      writeTask('python/sum-list', files);
      expect(() => loadTaskCatalogue(root)).toThrow(expected[i] as RegExp);
    });
    fs.rmSync(path.join(root, 'python'), { recursive: true });
    writeTask('python/sum-list', { ...validTask(), 'statement.md': ' \n' });
    expect(() => loadTaskCatalogue(root)).toThrow('sandbox task python/sum-list: statement.md is empty');
  });

  it('refuses a language folder it does not know', () => {
    writeTask('ruby/sum-list', validTask());
    expect(() => loadTaskCatalogue(root)).toThrow(/ruby: not a task language \(python, javascript\)/);
  });

  it('refuses a symbolic link among a task’s files, which would copy a file from outside into a workspace', () => {
    writeTask('python/sum-list', validTask());
    fs.symlinkSync('/etc/passwd', path.join(root, 'python', 'sum-list', 'files', 'passwd'));
    expect(() => loadTaskCatalogue(root)).toThrow(/sandbox task python\/sum-list: files\/passwd is not a regular file/);
  });

  it('says which folder it looked in when there is none', () => {
    const missing = path.join(root, 'nowhere');
    expect(() => loadTaskCatalogue(missing)).toThrow(`no sandbox task folder at ${missing} (ARENA_SANDBOX_TASKS_DIR)`);
  });
});

describe('ARENA_SANDBOX_TASKS_DIR', () => {
  it('defaults to the catalogue shipped with the service, resolved from the module, and accepts another folder', () => {
    expect(DEFAULT_SANDBOX_TASKS_DIR).toBe(path.resolve(__dirname, '..', '..', '..', 'sandbox-tasks'));
    expect(loadConfig({}).sandboxTasksDir).toBe(DEFAULT_SANDBOX_TASKS_DIR);
    expect(loadConfig({ ARENA_SANDBOX_TASKS_DIR: 'my-tasks' }).sandboxTasksDir).toBe(path.resolve('my-tasks'));
  });
});
