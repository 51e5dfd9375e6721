/** One MikroORM request context per request, so every route works on its own identity map. */
import { RequestContext, type EntityManager, type MikroORM } from '@mikro-orm/postgresql';
import fp from 'fastify-plugin';

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
    app.decorateRequest('em', {
      getter() {
        // Outside a request context this throws rather than silently using the global manager.
        return RequestContext.getEntityManager() as EntityManager;
      },
    });
    app.addHook('onRequest', (_request, _reply, done) => {
      RequestContext.create(orm.em, done);
    });
  },
  { name: 'orm' },
);
