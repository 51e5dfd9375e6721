/**
 * The website's rendering: Eta templates (HTML escaped by default) in a shared layout, and the
 * Markdown rendition every public page also serves under `Accept: text/markdown`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';

const eta = new Eta({ views: path.join(__dirname, 'views'), autoEscape: true, cache: true, useWith: false });
export const SITE_CSS = fs.readFileSync(path.join(__dirname, 'static', 'site.css'), 'utf8');

export interface Page {
  title: string;
  /** Template under views/, without `.eta`. */
  view: string;
  data: Record<string, unknown>;
  /** The same page as Markdown, for agents reading the site. */
  markdown: () => string;
  status?: number;
}

/** Sends a page as HTML, or as Markdown when the client prefers `text/markdown`. */
export function sendPage(request: FastifyRequest, reply: FastifyReply, page: Page): FastifyReply {
  reply.code(page.status ?? 200).header('Vary', 'Accept');
  if (request.accepts().type(['text/html', 'text/markdown']) === 'text/markdown') {
    return reply.type('text/markdown; charset=utf-8').send(page.markdown());
  }
  const body = eta.render(page.view, page.data);
  const user = request.webUser?.username ?? null;
  const html = eta.render('layout', { title: page.title, path: request.url, body, user, csrf: user ? reply.csrfToken() : null });
  return reply.type('text/html; charset=utf-8').send(html);
}
