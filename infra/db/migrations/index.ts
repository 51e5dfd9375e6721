/** Every migration, in order: listed explicitly so they load the same under tsx, jest and node. */
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122050346 } from './Migration20261122050346';

export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122050346', class: Migration20261122050346 },
];
