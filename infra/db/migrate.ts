/** Runs the migrations (`npm run migrate`), or creates a new one from the entities (`npm run migration:create`). */
import { MikroORM } from '@mikro-orm/postgresql';
import { loadConfig, requireRuntime } from '../config';
import { ormConfig } from './orm.config';
import { DEFAULT_SANDBOX_TASKS_DIR } from '../sandbox/task-catalogue';
import { seedCodingTasks, seedPrompts } from './seed';

/** Brings a database up to date: schema migrations, then the seeded prompts and coding tasks. */
export async function migrateDatabase(databaseUrl: string, tasksDir = DEFAULT_SANDBOX_TASKS_DIR): Promise<void> {
  const orm = await MikroORM.init(ormConfig(databaseUrl, { debug: false }));
  try {
    await orm.getMigrator().up();
    await seedPrompts(orm.em.fork());
    await seedCodingTasks(orm.em.fork(), tasksDir);
  } finally {
    await orm.close(true);
  }
}

async function createMigration(databaseUrl: string): Promise<void> {
  const orm = await MikroORM.init(ormConfig(databaseUrl));
  try {
    const result = await orm.getMigrator().createMigration();
    console.log(result.fileName ? `created ${result.fileName}; add it to infra/db/migrations/index.ts` : 'no changes');
  } finally {
    await orm.close(true);
  }
}

/** `npm run migrate` / `arena migrate` (and `npm run migration:create`). */
export async function runMigrateProcess(create = false): Promise<void> {
  const config = requireRuntime(loadConfig(), ['database']);
  if (create) await createMigration(config.databaseUrl);
  else await migrateDatabase(config.databaseUrl, config.sandboxTasksDir);
}

if (require.main === module) {
  runMigrateProcess(process.argv[2] === 'create').then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
