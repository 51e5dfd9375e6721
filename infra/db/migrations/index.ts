/** Every migration, in order: listed explicitly so they load the same under tsx, jest and node. */
import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261122050346 } from './Migration20261122050346';
import { Migration20261122081858 } from './Migration20261122081858';
import { Migration20261122083749 } from './Migration20261122083749';
import { Migration20261122094237 } from './Migration20261122094237';
import { Migration20261122214533 } from './Migration20261122214533';
import { Migration20261123122000 } from './Migration20261123122000';
import { Migration20261123120000 } from './Migration20261123120000';
import { Migration20261123121000 } from './Migration20261123121000';
import { Migration20261123130000 } from './Migration20261123130000';
import { Migration20261123132000 } from './Migration20261123132000';
import { Migration20261123145500 } from './Migration20261123145500';
import { Migration20261123190000 } from './Migration20261123190000';
import { Migration20261123200000 } from './Migration20261123200000';
import { Migration20261125130444 } from './Migration20261125130444';
import { Migration20261125134733 } from './Migration20261125134733';
import { Migration20261125154852 } from './Migration20261125154852';
import { Migration20261126060000 } from './Migration20261126060000';
import { Migration20261127120000 } from './Migration20261127120000';
import { Migration20261127150000 } from './Migration20261127150000';
import { Migration20261127160000 } from './Migration20261127160000';
import { Migration20261127170000 } from './Migration20261127170000';

export const migrationsList: MigrationObject[] = [
  { name: 'Migration20261122050346', class: Migration20261122050346 },
  { name: 'Migration20261122081858', class: Migration20261122081858 },
  { name: 'Migration20261122083749', class: Migration20261122083749 },
  { name: 'Migration20261122094237', class: Migration20261122094237 },
  { name: 'Migration20261122214533', class: Migration20261122214533 },
  { name: 'Migration20261123120000', class: Migration20261123120000 },
  { name: 'Migration20261123121000', class: Migration20261123121000 },
  { name: 'Migration20261123122000', class: Migration20261123122000 },
  { name: 'Migration20261123130000', class: Migration20261123130000 },
  { name: 'Migration20261123132000', class: Migration20261123132000 },
  { name: 'Migration20261123145500', class: Migration20261123145500 },
  { name: 'Migration20261123190000', class: Migration20261123190000 },
  { name: 'Migration20261123200000', class: Migration20261123200000 },
  { name: 'Migration20261125130444', class: Migration20261125130444 },
  { name: 'Migration20261125134733', class: Migration20261125134733 },
  { name: 'Migration20261125154852', class: Migration20261125154852 },
  { name: 'Migration20261126060000', class: Migration20261126060000 },
  { name: 'Migration20261127120000', class: Migration20261127120000 },
  { name: 'Migration20261127150000', class: Migration20261127150000 },
  { name: 'Migration20261127160000', class: Migration20261127160000 },
  { name: 'Migration20261127170000', class: Migration20261127170000 },
];
