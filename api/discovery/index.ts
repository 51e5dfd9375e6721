/** Discovery: everything a program or a person needs to start, found from the base URL alone. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { apiCatalogLinkHeader } from './documents';
import { docsRoutes } from './docs-routes';
import { downloadRoutes, type Download } from './downloads';
import { wellKnownRoutes } from './well-known-routes';
import { rebaseAnswers } from '../request-base';
import { named } from '../plugins/plugin-name';

/**
 * Every response, API or page, names the API catalog (RFC 9727 §3), so a client that fetched anything
 * can find the rest. An existing Link header is extended, never replaced.
 */
export const apiCatalogLink = fp(
  async (app: FastifyInstance, { publicUrl }: { publicUrl: string }) => {
    const link = apiCatalogLinkHeader(publicUrl);
    app.addHook('onSend', async (_request, reply, payload) => {
      const existing = reply.getHeader('link');
      if (existing === undefined) reply.header('link', link);
      else if (!String(existing).includes('rel="api-catalog"')) reply.header('link', `${String(existing)}, ${link}`);
      return payload;
    });
  },
  { name: 'api-catalog-link' },
);

export const discoveryRoutes: FastifyPluginAsyncZod<{
  publicUrl: string;
  publicUrlSet: boolean;
  downloads: ReadonlyMap<string, Download>;
}> = async (app, { publicUrl, publicUrlSet, downloads }) => {
  rebaseAnswers(app, { publicUrl, publicUrlSet });
  await app.register(named(wellKnownRoutes), { publicUrl, publicUrlSet });
  await app.register(named(docsRoutes), { publicUrl });
  await app.register(named(downloadRoutes), { publicUrl, downloads });
};
