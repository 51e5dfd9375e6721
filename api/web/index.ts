/** The website, served by the same Fastify app as the API: server-rendered pages, no scripts needed to read them. */
import accepts from '@fastify/accepts';
import type { FastifyPluginAsync } from 'fastify';
import { publicPages } from './public-pages';

export const website: FastifyPluginAsync<{ publicUrl: string }> = async (app, { publicUrl }) => {
  // Pages are not part of the API description.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(accepts);
  await app.register(publicPages, { publicUrl });
};
