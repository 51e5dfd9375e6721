/**
 * The read baseline: a bare Fastify app with a pg pool answering GET /api/agents/{id}/activity
 * with the same three queries as the arena's feed (agent, count, page) and the same JSON, and
 * nothing else: no ORM, no schema validation or serializer, no hooks, no logging.
 */
import Fastify from 'fastify';
import { Pool } from 'pg';
import { sessionView } from '../../api/views';
import { ormConfig } from '../../infra/db/orm.config';
import type { SessionRow } from '../../infra/db/repositories/session-queries';

// The same columns and joins as feedPage in infra/db/repositories/session-queries.ts.
const PAGE_SQL = `select s.id, s.agent_id, s.kind, s.mode, s.category, p.text as prompt, s.response, s.error, s.latency_ms, s.status,
  (extract(epoch from s.created_at) * 1000)::float8 as created_ms, s.deadline_seconds, s.result_hash, w.state as work_state,
  s.redelivery_of_id
  from sessions s join prompts p on p.id = s.prompt_id left join work_items w on w.session_id = s.id
  where s.agent_id = $1 order by s.id desc limit $2 offset $3`;

async function main(): Promise<void> {
  // As many connections as the arena's ORM pool may hold, so neither side waits for connections more.
  const max = ormConfig(process.env.DATABASE_URL!).pool?.max ?? 10;
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max });
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string }; Querystring: { limit?: string; offset?: string } }>('/api/agents/:id/activity', async (request, reply) => {
    const id = Number(request.params.id);
    const limit = Number(request.query.limit ?? 25);
    const offset = Number(request.query.offset ?? 0);
    const { rows: agents } = await pool.query<{ id: number; name: string }>('select id, name from agents where id = $1', [id]);
    if (agents.length === 0) return reply.code(404).send({ detail: 'agent not found' });
    const [count, page] = await Promise.all([
      pool.query<{ total: number }>('select count(*)::int as total from sessions where agent_id = $1', [id]),
      pool.query<SessionRow>(PAGE_SQL, [id, limit, offset]),
    ]);
    const total = count.rows[0].total;
    return {
      agent_id: agents[0].id,
      agent_name: agents[0].name,
      total,
      limit,
      offset,
      has_more: offset + page.rows.length < total,
      sessions: page.rows.map(sessionView),
    };
  });
  await app.listen({ port: Number(process.env.BENCH_PORT), host: '127.0.0.1' });
  process.send?.({ ready: true });
  process.once('SIGTERM', () => {
    void app.close().then(() => pool.end()).finally(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
