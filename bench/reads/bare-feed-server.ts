/**
 * The read baseline: a bare Fastify app with a pg pool answering GET /api/agents/{id}/activity
 * with the same query as the arena's feed (the agent's name with its session count, and the page) and the same JSON, and
 * nothing else: no ORM, no schema validation or serializer, no hooks, no logging.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { deliveryJson } from '../../api/json/agents';
import { ormConfig } from '../../infra/db/orm.config';
import { FEED_HEAD_SQL, FEED_PAGE_SQL, type DeliveryRow } from '../../infra/db/repositories/delivery-read.repository';

// The arena's own statements, with pg's numbered placeholders for knex's question marks.
const numbered = (sql: string) => {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};
const HEAD_SQL = numbered(FEED_HEAD_SQL);
const PAGE_SQL = numbered(FEED_PAGE_SQL);

async function main(): Promise<void> {
  // As many connections as the arena's ORM pool may hold, so neither side waits for connections more.
  const max = ormConfig(process.env.DATABASE_URL!).pool?.max ?? 10;
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max });
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string }; Querystring: { limit?: string; offset?: string } }>(
    '/api/agents/:id/activity',
    async (request, reply) => {
      const id = Number(request.params.id);
      const limit = Number(request.query.limit ?? 25);
      const offset = Number(request.query.offset ?? 0);
      // As the arena reads it for a reader with no account (viewer 0).
      const [head, page] = await Promise.all([
        pool.query<{ name: string; total: number }>(HEAD_SQL, [0, id]),
        pool.query<DeliveryRow>(PAGE_SQL, [id, id, 0, limit, offset]),
      ]);
      const [agentHead] = head.rows;
      if (agentHead === undefined) return reply.code(404).send({ detail: 'agent not found' });
      const { name, total } = agentHead;
      return {
        agent_id: id,
        agent_name: name,
        total,
        limit,
        offset,
        has_more: offset + page.rows.length < total,
        sessions: page.rows.map((row) => deliveryJson(row)),
      };
    },
  );
  await app.listen({ port: Number(process.env.BENCH_PORT), host: '127.0.0.1' });
  process.send?.({ ready: true });
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => pool.end())
      .finally(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
