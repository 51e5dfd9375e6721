/**
 * The push figure's same-job baseline (c), its API: a bare Fastify app with a pg pool and a
 * Temporal client that does what the arena's sandbox request does for a delivery, with none of
 * the arena's code: one insert of the prompt and its delivery row, one workflow start
 * (`sameJobDelivery`, on the engine worker's queue, which signs, POSTs and records), and the row as
 * JSON in a 202. No ORM, schema validation, authentication, rate limit or logging.
 */
import { Client, Connection } from '@temporalio/client';
import Fastify from 'fastify';
import { Pool } from 'pg';
import { ormConfig } from '../../infra/db/orm.config';
import { ENGINE_TASK_QUEUE } from '../engine/task-queue';

const SCHEMA = `
  create table if not exists same_job_prompts (
    id serial primary key, text text not null, category text not null, created_at timestamptz not null default now());
  create table if not exists same_job_deliveries (
    id serial primary key, prompt_id int not null references same_job_prompts(id), url text not null,
    status text not null default 'pending', response text, latency_ms int,
    created_at timestamptz not null default now(), completed_at timestamptz)`;

const INSERT = `
  with p as (insert into same_job_prompts (text, category) values ($1, $2) returning id)
  insert into same_job_deliveries (prompt_id, url) select p.id, $3 from p
  returning id, prompt_id, status, (extract(epoch from created_at) * 1000)::float8 as created_ms`;

async function main(): Promise<void> {
  // As many connections as the arena's ORM pool may hold.
  const max = ormConfig(process.env.DATABASE_URL!).pool?.max ?? 10;
  const pool = new Pool({ connectionString: process.env.DATABASE_URL, max });
  await pool.query(SCHEMA);
  const connection = await Connection.connect({ address: process.env.TEMPORAL_ADDRESS! });
  const client = new Client({ connection, namespace: 'default' });
  const app = Fastify({ logger: false });
  app.post<{ Body: { url: string; prompt: string; category?: string } }>('/jobs', async (request, reply) => {
    const { url, prompt, category = 'sandbox' } = request.body;
    const { rows } = await pool.query<{ id: number; prompt_id: number; status: string; created_ms: number }>(INSERT, [
      prompt,
      category,
      url,
    ]);
    const row = rows[0]!;
    await client.workflow.start('sameJobDelivery', {
      taskQueue: ENGINE_TASK_QUEUE,
      workflowId: `same-job-${row.id}`,
      args: [row.id],
    });
    return reply.code(202).send({ ...row, id: `same-${row.id}`, prompt, category });
  });
  await app.listen({ port: Number(process.env.BENCH_PORT), host: '127.0.0.1' });
  process.send?.({ ready: true });
  process.once('SIGTERM', () => {
    void app
      .close()
      .then(() => Promise.all([pool.end(), connection.close()]))
      .finally(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
