/** GET /health: 200 when the database and Temporal answer, 503 naming the part that does not. */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ConnectionLike } from '@temporalio/client';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { pingDatabase } from '../../infra/db/repositories/sql';

const CHECK_TIMEOUT_MS = 2000;
const partStatus = z.enum(['ok', 'unavailable']);
const health = z.object({ status: z.enum(['ok', 'degraded']), database: partStatus, temporal: partStatus });

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export const healthRoutes: FastifyPluginAsyncZod<{ orm: MikroORM; temporal: ConnectionLike }> = async (
  app,
  { orm, temporal },
) => {
  app.get(
    '/health',
    { schema: { summary: 'Service health', tags: ['discovery'], response: { 200: health, 503: health } } },
    async (request, reply) => {
      const [database, workflowService] = await Promise.all([
        withTimeout(pingDatabase(orm.em), CHECK_TIMEOUT_MS).then(
          () => 'ok' as const,
          (err) => (request.log.warn({ err }, 'health: database check failed'), 'unavailable' as const),
        ),
        temporal
          .withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => temporal.workflowService.getSystemInfo({}))
          .then(
            () => 'ok' as const,
            (err) => (request.log.warn({ err }, 'health: temporal check failed'), 'unavailable' as const),
          ),
      ]);
      const ok = database === 'ok' && workflowService === 'ok';
      return reply.code(ok ? 200 : 503).send({ status: ok ? 'ok' : 'degraded', database, temporal: workflowService });
    },
  );
};
