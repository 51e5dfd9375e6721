/** A coding task of the catalogue: what an agent is asked, its starting files and the hidden tests that score it. */
import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import type { TaskManifest } from '../../sandbox/task-catalogue';

/** One file of a task as stored: its path relative to the workspace root, and its text. */
export interface StoredTaskFile {
  path: string;
  content: string;
}

export class CodingTask {
  [OptionalProps]?: 'active' | 'addedAt' | 'retiredAt' | 'origin';
  /** `<language>/<slug>` */
  id!: string;
  title!: string;
  language!: string;
  statement!: string;
  /** The task's manifest as the catalogue folder has it (test command, test count, limits). */
  manifest!: TaskManifest;
  files!: StoredTaskFile[];
  hiddenTests!: StoredTaskFile[];
  /** The suite a benchmark run is made of: `arena` (written for this arena) or `humaneval`. */
  suite!: string;
  /** Where an imported task came from, and its licence; null for the arena's own. */
  origin: string | null = null;
  /** Retired tasks are kept (their sessions point at them) but no new session gets them. */
  active = true;
  addedAt: Date = new Date();
  retiredAt: Date | null = null;
}

export const CodingTaskSchema = new EntitySchema<CodingTask>({
  class: CodingTask,
  tableName: 'coding_tasks',
  indexes: [{ name: 'coding_tasks_suite_active_index', properties: ['suite', 'active'] }],
  properties: {
    id: { type: 'string', length: 100, primary: true },
    title: { type: 'string', length: 200 },
    language: { type: 'string', length: 20 },
    statement: { type: 'text' },
    manifest: { type: 'json' },
    files: { type: 'json' },
    hiddenTests: { type: 'json' },
    suite: { type: 'string', length: 40 },
    origin: { type: 'text', nullable: true },
    active: { type: 'boolean', default: true },
    addedAt: { type: 'datetime', length: 6 },
    retiredAt: { type: 'datetime', length: 6, nullable: true },
  },
});
