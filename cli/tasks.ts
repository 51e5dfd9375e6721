/** `arena tasks …`: operators list the coding-task catalogue, add a task folder, and retire or reinstate tasks. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { addCodingTasks, listCodingTasks, setCodingTaskActive } from '../infra/db/repositories/coding-task.repository';
import { loadTaskFolder, storedTask, TaskCatalogueError } from '../infra/sandbox/task-catalogue';
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
