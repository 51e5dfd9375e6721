/** The owner of the coding-task catalogue (`coding_tasks`): tasks added, listed, retired and read. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TaskManifest } from '../../sandbox/task-catalogue';
import type { StoredTaskFile } from '../entities/coding-task.entity';
import { ARENA_SUITE } from '../../../domain/sandbox/suites';
import { run } from './sql';

export interface NewCodingTask {
  id: string;
  title: string;
  language: string;
  statement: string;
  manifest: TaskManifest;
  files: StoredTaskFile[];
  hiddenTests: StoredTaskFile[];
  suite: string;
  /** Where an imported task came from, and its licence. */
  origin?: string | null;
}

/** Adds tasks that are not in the catalogue yet; a task already there (active or retired) is left as it is. Answers the ids added. */
export async function addCodingTasks(em: EntityManager, tasks: readonly NewCodingTask[]): Promise<string[]> {
  const added: string[] = [];
  for (const t of tasks) {
    const rows = await run<{ id: string }>(
      em,
      `insert into coding_tasks (id, title, language, statement, manifest, files, hidden_tests, suite, origin, active, added_at)
       values (?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?, true, now())
       on conflict (id) do nothing returning id`,
      [
        t.id,
        t.title,
        t.language,
        t.statement,
        JSON.stringify(t.manifest),
        JSON.stringify(t.files),
        JSON.stringify(t.hiddenTests),
        t.suite,
        t.origin ?? null,
      ],
    );
    if (rows[0]) added.push(rows[0].id);
  }
  return added;
}

/** Which of `ids` the catalogue has, active or retired. */
export async function existingTaskIds(em: EntityManager, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  // One array parameter (ids are letters, digits, / and -), however many ids.
  const rows = await run<{ id: string }>(em, `select id from coding_tasks where id = any(?::text[])`, [
    `{${ids.map((id) => JSON.stringify(id)).join(',')}}`,
  ]);
  return rows.map((r) => r.id);
}

export interface CodingTaskRow {
  id: string;
  title: string;
  language: string;
  active: boolean;
  sessions: number;
  passed: number;
}

/** The catalogue with how often each task was attempted and passed. */
export function listCodingTasks(em: EntityManager): Promise<CodingTaskRow[]> {
  return run<CodingTaskRow>(
    em,
    `select t.id, t.title, t.language, t.active,
       count(c.session_id)::int as sessions, count(*) filter (where s.status = 'passed')::int as passed
     from coding_tasks t left join coding_sessions c on c.task_id = t.id left join sessions s on s.id = c.session_id
     group by t.id order by t.id`,
  );
}

/** Retires or reinstates a task; false when there is no such task. */
export async function setCodingTaskActive(em: EntityManager, id: string, active: boolean): Promise<boolean> {
  const rows = await run(
    em,
    `update coding_tasks set active = ?, retired_at = case when ? then null else now() end where id = ? returning id`,
    [active, active, id],
  );
  return rows.length > 0;
}

export interface CodingTaskContent {
  id: string;
  title: string;
  language: string;
  statement: string;
  manifest: TaskManifest;
  files: StoredTaskFile[];
  hidden_tests: StoredTaskFile[];
}

export async function findCodingTask(em: EntityManager, id: string): Promise<CodingTaskContent | undefined> {
  const [row] = await run<CodingTaskContent>(
    em,
    `select id, title, language, statement, manifest, files, hidden_tests from coding_tasks where id = ?`,
    [id],
  );
  return row;
}

export async function isTaskActive(em: EntityManager, id: string): Promise<boolean> {
  const [row] = await run<{ active: boolean }>(em, `select active from coding_tasks where id = ?`, [id]);
  return row?.active ?? false;
}

/** An active task by id, or for `random` a random active one of the arena's own suite; undefined when there is none. */
export async function pickActiveTask(
  em: EntityManager,
  idOrRandom: string,
): Promise<{ id: string; title: string; statement: string } | undefined> {
  const [row] = await run<{ id: string; title: string; statement: string }>(
    em,
    idOrRandom === 'random'
      ? `select id, title, statement from coding_tasks where active and suite = '${ARENA_SUITE}' order by random() limit 1`
      : `select id, title, statement from coding_tasks where active and id = ?`,
    idOrRandom === 'random' ? [] : [idOrRandom],
  );
  return row;
}

/** The active tasks, of one suite when it is given, by suite and id. */
export function activeTasks(
  em: EntityManager,
  suite?: string,
): Promise<Array<{ id: string; title: string; statement: string; suite: string; language: string }>> {
  return suite === undefined
    ? run(em, `select id, title, statement, suite, language from coding_tasks where active order by suite, id`)
    : run(em, `select id, title, statement, suite, language from coding_tasks where active and suite = ? order by id`, [
        suite,
      ]);
}
