/**
 * Seeds the prompts the service ships with: the gym and the main arena's pool. Safe on every
 * start. A seeded prompt never changes: a new text gets a new slug, so past sessions keep the
 * prompt they were sent, and a prompt an operator retired stays retired.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GYM_PROMPTS } from '../../domain/gym-prompts';
import { validatePoolSeed, type PoolPrompt } from '../../domain/prompt-files';
import { insertPrompts } from './repositories/prompt.repository';
import { addCodingTasks } from './repositories/coding-task.repository';
import { loadTaskCatalogue, storedTask } from '../sandbox/task-catalogue';

const POOL_SEED = path.join(__dirname, 'seeds', 'pool-prompts.json');

export function poolSeed(): PoolPrompt[] {
  const checked = validatePoolSeed(JSON.parse(fs.readFileSync(POOL_SEED, 'utf8')));
  if (!checked.ok) throw new Error(`${POOL_SEED} is invalid:\n  ${checked.errors.join('\n  ')}`);
  return checked.prompts;
}

export async function seedPrompts(em: EntityManager): Promise<void> {
  await insertPrompts(em, 'gym', GYM_PROMPTS);
  await insertPrompts(em, 'pool', poolSeed());
}

/**
 * Adds the coding tasks of the catalogue folder that the database does not have yet. Like a
 * prompt, a task never changes once added (its sessions were scored against it): a changed task
 * gets a new id, and a task an operator retired stays retired.
 */
export async function seedCodingTasks(em: EntityManager, dir: string): Promise<string[]> {
  const tasks = await Promise.all(loadTaskCatalogue(dir).map(storedTask));
  return addCodingTasks(em, tasks);
}
