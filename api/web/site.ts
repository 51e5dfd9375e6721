/**
 * The website's rendering: Eta templates (HTML escaped by default) in a shared layout, and the
 * Markdown rendition every page also serves under `Accept: text/markdown`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { Eta } from 'eta';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { mdEscape } from './render/markdown-pages';
import { timeElement, type Instant } from './render/times';

const eta = new Eta({ views: path.join(__dirname, 'views'), autoEscape: true, cache: true, useWith: false });
const staticFile = (name: string) => fs.readFileSync(path.join(__dirname, 'static', name), 'utf8');
export const SITE_CSS = staticFile('site.css');
/** Refreshes a page's `[data-live]` part while the server still marks it live (a battle whose answers are coming). */
export const LIVE_JS = staticFile('live.js');
/** The arena's mark; favicon.ico holds the same drawing as PNGs of 16, 32 and 48 pixels, for browsers that ask for it by that name. */
export const FAVICON_SVG = staticFile('favicon.svg');
export const FAVICON_ICO = fs.readFileSync(path.join(__dirname, 'static', 'favicon.ico'));

export interface Page {
  title: string;
  /** Template under views/, without `.eta`. */
  view: string;
  data: Record<string, unknown>;
  /** The same page as Markdown, for agents reading the site. */
  markdown: () => string;
  status?: number;
  /** Still changing: the page refreshes itself (by script, or a meta refresh without scripts) until it is not. */
  live?: boolean;
  /** Shows a secret once: never cached, by the browser or anything between. */
  noStore?: boolean;
}

/** Sends a page as HTML, or as Markdown when the client prefers `text/markdown`. */
export function sendPage(request: FastifyRequest, reply: FastifyReply, page: Page): FastifyReply {
  reply.code(page.status ?? 200).header('Vary', 'Accept');
  if (page.noStore) reply.header('Cache-Control', 'no-store');
  if (request.accepts().type(['text/html', 'text/markdown']) === 'text/markdown') {
    return reply.type('text/markdown; charset=utf-8').send(page.markdown());
  }
  const user = request.webUser?.username ?? null;
  const csrf = user ? reply.csrfToken() : null;
  // Every template can show a time as people read it: `<%~ it.when(at) %>`.
  const now = request.server.now();
  const when = (at: Instant) => timeElement(at, now);
  const body = eta.render(page.view, { csrf, when, ...page.data });
  const html = eta.render('layout', {
    title: page.title,
    path: request.url,
    body,
    user,
    csrf,
    live: page.live ?? false,
  });
  return reply.type('text/html; charset=utf-8').send(html);
}

const STATUS_TITLES: Record<number, string> = {
  400: 'That did not work',
  401: 'Sign in first',
  403: 'Not allowed',
  404: 'Not found',
  409: 'Not possible right now',
  413: 'Too large',
  429: 'Slow down',
  503: 'Unavailable for a moment',
};

/** A failure as a page: the status, and the same sentence the API would give as `detail`. */
export function sendErrorPage(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  message: string,
): FastifyReply {
  const title = STATUS_TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'That did not work');
  return sendPage(request, reply, {
    title,
    view: 'error',
    status,
    data: { title, message },
    markdown: () => `# ${title}\n\n${mdEscape(message)}\n`,
  });
}
