/** One MikroORM entity manager per request, so every route works on its own identity map. */
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

const kEm = Symbol('arena.em');

declare module 'fastify' {
  interface FastifyInstance {
    orm: MikroORM;
  }
  interface FastifyRequest {
    em: EntityManager;
  }
}

export const ormPlugin = fp<{ orm: MikroORM }>(
  async (app, { orm }) => {
    app.decorate('orm', orm);
    // Forked on first use: a request that never touches the database (a page from memory, a
    // long-poll on raw SQL) allocates no identity map.
    app.decorateRequest(kEm, null);
    app.decorateRequest('em', {
      getter(this: FastifyRequest) {
        const request = this as FastifyRequest & { [kEm]: EntityManager | null };
        return (request[kEm] ??= orm.em.fork());
      },
    });
  },
  { name: 'orm' },
);
