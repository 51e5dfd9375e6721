/** How every repository runs a statement: on the EntityManager's connection, inside its transaction when it has one. */
import type { EntityManager } from '@mikro-orm/postgresql';

/** Runs one statement and returns its rows; `?` placeholders take `params` in order. */
export function run<T = Record<string, unknown>>(
  em: EntityManager,
  query: string,
  params: readonly unknown[] = [],
): Promise<T[]> {
  // Without a transaction the context is undefined and the statement takes any pooled connection.
  return em.getConnection().execute<T[]>(query, [...params], 'all', em.getTransactionContext());
}

/** The row a statement must return (a count, an aggregate): its absence is a bug, said plainly. */
export function onlyRow<T>(rows: readonly T[], what: string): T {
  const [row] = rows;
  if (row === undefined) throw new Error(`${what}: the statement returned no row`);
  return row;
}

/** Answers when the database takes a statement at all. */
export async function pingDatabase(em: EntityManager): Promise<void> {
  await run(em, 'select 1');
}
