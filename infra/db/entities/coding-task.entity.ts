/** A coding task of the catalogue: what an agent is asked, its starting files and the hidden tests that score it. */
import { EntitySchema, OptionalProps } from '@mikro-orm/core';
import type { TaskManifest } from '../../sandbox/task-catalogue';

/** One file of a task as stored: its path relative to the workspace root, and its text. */
export interface StoredTaskFile {
  path: string;
  content: string;
}

export class CodingTask {
  [OptionalProps]?: 'active' | 'addedAt' | 'retiredAt';
  /** `<language>/<slug>` */
  id!: string;
  title!: string;
  language!: string;
  statement!: string;
  /** The task's manifest as the catalogue folder has it (test command, test count, limits). */
  manifest!: TaskManifest;
  files!: StoredTaskFile[];
  hiddenTests!: StoredTaskFile[];
  /** Retired tasks are kept (their sessions point at them) but no new session gets them. */
  active = true;
  addedAt: Date = new Date();
  retiredAt: Date | null = null;
}

export const CodingTaskSchema = new EntitySchema<CodingTask>({
  class: CodingTask,
  tableName: 'coding_tasks',
  properties: {
    id: { type: 'string', length: 100, primary: true },
    title: { type: 'string', length: 200 },
    language: { type: 'string', length: 20 },
    statement: { type: 'text' },
    manifest: { type: 'json' },
    files: { type: 'json' },
    hiddenTests: { type: 'json' },
    active: { type: 'boolean', default: true },
    addedAt: { type: 'datetime', length: 6 },
    retiredAt: { type: 'datetime', length: 6, nullable: true },
  },
});
