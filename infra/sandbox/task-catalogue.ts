/** The coding tasks of the sandbox: one folder per task (`<language>/<slug>/`), read and checked when loaded. */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ARENA_SUITE } from '../../domain/sandbox/suites';
import { SANDBOX_LANGUAGES, type SandboxLanguage } from '../../domain/sandbox/languages';

/** The catalogue shipped with the service; from dist/ it is the copy the build makes beside the compiled code. */
export const DEFAULT_SANDBOX_TASKS_DIR = path.resolve(__dirname, '..', '..', 'sandbox-tasks');

/** Where a task's hidden tests sit in the clean room that scores a session, and where the harness looks for them. */
export const HIDDEN_TESTS_DIR = '.hidden-tests';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const taskManifestSchema = z
  .object({
    id: z.string().regex(/^[a-z]+\/[a-z0-9]+(?:-[a-z0-9]+)*$/, 'expected "<language>/<slug>"'),
    title: z.string().trim().min(1).max(120),
    language: z.enum(SANDBOX_LANGUAGES),
    /** The hidden tests' count: a run that crashes before any test ran still scores 0 of it. */
    tests_total: z.number().int().min(1).max(1000),
    limits: z.object({ test_timeout_seconds: z.number().int().min(1).max(600) }).strict(),
  })
  .strict();

export type TaskManifest = z.infer<typeof taskManifestSchema>;

/** One file of a task: its path inside the workspace (with `/`) and its bytes. */
export interface TaskFile {
  path: string;
  content: Buffer;
}

export interface SandboxTask {
  id: string;
  manifest: TaskManifest;
  statement: string;
  /** The task's folder and its parts, for copying into a workspace as they are. */
  paths: { root: string; files: string; tests: string; solution: string };
  readStartingFiles(): Promise<TaskFile[]>;
  /** Copied under `HIDDEN_TESTS_DIR` at scoring, replacing whatever the agent left there. */
  readHiddenTests(): Promise<TaskFile[]>;
  /** The reference solution: only the files it changes or adds, written over the starting files. */
  readSolution(): Promise<TaskFile[]>;
}

export class TaskCatalogueError extends Error {}

/** Every regular file under `dir`, by path relative to it; anything else (a link, a device) is refused. */
function listFiles(dir: string, fail: (message: string) => never, prefix = ''): string[] {
  const names: string[] = [];
  for (const entry of fs.readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) names.push(...listFiles(dir, fail, relative));
    else if (entry.isFile()) names.push(relative);
    else fail(`${path.basename(dir)}/${relative} is not a regular file`);
  }
  return names.sort();
}

async function readFiles(dir: string, names: string[]): Promise<TaskFile[]> {
  return Promise.all(
    names.map(async (name) => ({ path: name, content: await fs.promises.readFile(path.join(dir, name)) })),
  );
}

function readManifest(file: string, fail: (message: string) => never): TaskManifest {
  let json: unknown;
  try {
    json = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') fail('task.json is missing');
    fail(`task.json is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof json === 'object' && json !== null && 'test_command' in json) {
    fail("task.json: test_command is no longer used: the arena's own harness runs the hidden tests (remove it)");
  }
  const parsed = taskManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    fail(`task.json: ${issue?.path.join('.') || '(root)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

function loadTask(root: string, language: SandboxLanguage, slug: string): SandboxTask {
  const folderId = `${language}/${slug}`;
  const fail = (message: string): never => {
    throw new TaskCatalogueError(`sandbox task ${folderId}: ${message}`);
  };
  if (!SLUG.test(slug)) fail('the folder name must be lowercase letters, digits and hyphens');
  const manifest = readManifest(path.join(root, 'task.json'), fail);
  if (manifest.id !== folderId) fail(`task.json: id "${manifest.id}" must be its folder, "${folderId}"`);
  if (manifest.language !== language) {
    fail(`task.json: language "${manifest.language}" must be its folder's, "${language}"`);
  }
  const statementFile = path.join(root, 'statement.md');
  if (!fs.existsSync(statementFile)) fail('statement.md is missing');
  const statement = fs.readFileSync(statementFile, 'utf8');
  if (statement.trim() === '') fail('statement.md is empty');

  const paths = {
    root,
    files: path.join(root, 'files'),
    tests: path.join(root, 'tests'),
    solution: path.join(root, 'solution'),
  };
  const listed = (part: 'files' | 'tests' | 'solution'): string[] => {
    const names = fs.existsSync(paths[part]) ? listFiles(paths[part], fail) : [];
    if (names.length === 0) fail(`${part}/ is missing or empty`);
    return names;
  };
  const files = listed('files');
  const tests = listed('tests');
  const solution = listed('solution');
  return {
    id: manifest.id,
    manifest,
    statement,
    paths,
    readStartingFiles: () => readFiles(paths.files, files),
    readHiddenTests: () => readFiles(paths.tests, tests),
    readSolution: () => readFiles(paths.solution, solution),
  };
}

/**
 * Every task under `dir` (`ARENA_SANDBOX_TASKS_DIR`), by id. Loaded once at start: a broken task
 * stops the load with a message naming it, rather than failing a session later.
 */
export function loadTaskCatalogue(dir: string = DEFAULT_SANDBOX_TASKS_DIR): SandboxTask[] {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
    throw new TaskCatalogueError(`no sandbox task folder at ${dir} (ARENA_SANDBOX_TASKS_DIR)`);
  }
  const tasks: SandboxTask[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    // A README or another note beside the language folders is for people.
    if (!entry.isDirectory()) continue;
    const language = SANDBOX_LANGUAGES.find((name) => name === entry.name);
    if (language === undefined) {
      throw new TaskCatalogueError(
        `sandbox tasks: ${entry.name}: not a task language (${SANDBOX_LANGUAGES.join(', ')})`,
      );
    }
    for (const task of fs.readdirSync(path.join(dir, language), { withFileTypes: true })) {
      if (task.isDirectory()) tasks.push(loadTask(path.join(dir, language, task.name), language, task.name));
    }
  }
  return tasks.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** One task's folder (`…/<language>/<slug>`), as an operator adds it to a running arena. */
export function loadTaskFolder(folder: string): SandboxTask {
  const root = path.resolve(folder);
  const slug = path.basename(root);
  const language = SANDBOX_LANGUAGES.find((name) => name === path.basename(path.dirname(root)));
  if (language === undefined) {
    throw new TaskCatalogueError(
      `sandbox task ${folder}: it must sit in a folder named after its language (${SANDBOX_LANGUAGES.join(', ')})`,
    );
  }
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
    throw new TaskCatalogueError(`sandbox task ${folder}: no such folder`);
  }
  return loadTask(root, language, slug);
}

/**
 * A task as the database keeps it: the files as UTF-8 text, the hidden tests under
 * `HIDDEN_TESTS_DIR`, and no reference solution (only the catalogue's own check needs it).
 */
export async function storedTask(task: SandboxTask): Promise<{
  id: string;
  title: string;
  language: SandboxLanguage;
  statement: string;
  manifest: TaskManifest;
  files: Array<{ path: string; content: string }>;
  hiddenTests: Array<{ path: string; content: string }>;
  suite: string;
}> {
  const text = (file: TaskFile, prefix = '') => {
    try {
      return { path: prefix + file.path, content: new TextDecoder('utf-8', { fatal: true }).decode(file.content) };
    } catch {
      throw new TaskCatalogueError(`sandbox task ${task.id}: ${file.path} is not UTF-8 text`);
    }
  };
  return {
    id: task.id,
    title: task.manifest.title,
    language: task.manifest.language,
    statement: task.statement,
    manifest: task.manifest,
    files: (await task.readStartingFiles()).map((f) => text(f)),
    hiddenTests: (await task.readHiddenTests()).map((f) => text(f, `${HIDDEN_TESTS_DIR}/`)),
    // A task folder is one of the arena's own; imported data sets have suites of their own.
    suite: ARENA_SUITE,
  };
}
