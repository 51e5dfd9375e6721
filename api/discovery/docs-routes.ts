/** /docs/: the documentation root, the guides (HTML, or Markdown on request) and the interactive API reference. */
import { createHash } from 'node:crypto';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ApiError } from '../errors';
import { errors } from '../schemas/common';
import { docsIndexMarkdown, GUIDES, loadGuides } from './guides';
import { renderMarkdown } from './markdown';
import { prefersMarkdown } from './negotiation';
import { docsPage } from './page';

const HTML = 'text/html; charset=utf-8';
/** The style inside Swagger UI's logo (swagger-ui-standalone-preset.js). */
const SWAGGER_LOGO_STYLE = '.logo_small_svg__cls-2{fill:#fff}.logo_small_svg__cls-3{fill:#85ea2d}';
const MARKDOWN = 'text/markdown; charset=utf-8';

const htmlOrMarkdown = (description: string) => ({
  description,
  content: { 'text/html': { schema: z.string() }, 'text/markdown': { schema: z.string() } },
});

const guideParams = z.object({
  name: z
    .string()
    .max(100)
    .describe(`A guide: ${GUIDES.map((g) => g.name).join(', ')}. Add \`.md\` for its Markdown source.`),
});

function sendDoc(reply: FastifyReply, accept: string | undefined, markdown: string, html: string) {
  reply.header('Vary', 'Accept').header('Cache-Control', 'public, max-age=300');
  return prefersMarkdown(accept) ? reply.type(MARKDOWN).send(markdown) : reply.type(HTML).send(html);
}

export const docsRoutes: FastifyPluginAsyncZod<{ publicUrl: string }> = async (app, { publicUrl }) => {
  const guides = loadGuides(publicUrl);
  const indexMarkdown = docsIndexMarkdown(publicUrl);
  const indexHtml = docsPage({ title: 'Documentation', bodyHtml: renderMarkdown(indexMarkdown) });

  const index = {
    schema: {
      summary: 'The documentation root: guides and reference (HTML, or Markdown with Accept: text/markdown)',
      tags: ['discovery'],
      response: { 200: htmlOrMarkdown('The documentation index') },
    },
  };
  app.get('/docs/', index, async (request, reply) => sendDoc(reply, request.headers.accept, indexMarkdown, indexHtml));
  app.get('/docs/guides/', index, async (request, reply) =>
    sendDoc(reply, request.headers.accept, indexMarkdown, indexHtml),
  );
  // A convenience for people typing the address; not part of the API.
  app.get('/docs', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/docs/', 301));

  app.get(
    '/docs/guides/:name',
    {
      schema: {
        summary: 'A guide as HTML, or as Markdown with a .md suffix or Accept: text/markdown',
        tags: ['discovery'],
        params: guideParams,
        response: { 200: htmlOrMarkdown('The guide'), ...errors(404) },
      },
    },
    async (request, reply) => {
      const raw = request.params.name;
      const asMarkdown = raw.endsWith('.md');
      const guide = guides.get(asMarkdown ? raw.slice(0, -3) : raw);
      if (!guide) throw new ApiError(404, `no guide named ${raw}; the guides are listed at ${publicUrl}/docs/`);
      if (asMarkdown) return reply.header('Cache-Control', 'public, max-age=300').type(MARKDOWN).send(guide.markdown);
      const markdownUrl = `${publicUrl}/docs/guides/${guide.name}.md`;
      return sendDoc(
        reply,
        request.headers.accept,
        guide.markdown,
        docsPage({ title: guide.title, bodyHtml: guide.html, markdownUrl }),
      );
    },
  );

  // Swagger UI from the package's own files (no CDN); it reads the same document as /openapi.json.
  // Its top bar's logo brings a <style> of its own: the policy allows exactly that text there.
  const logoStyle = `'sha256-${createHash('sha256').update(SWAGGER_LOGO_STYLE).digest('base64')}'`;
  await app.register(swaggerUi, {
    routePrefix: '/docs/reference',
    theme: { title: 'Agent Arena API reference' },
    transformStaticCSP: (policy) => policy.replace(/style-src ([^;]*)/, `style-src $1 ${logoStyle}`),
  });
};
