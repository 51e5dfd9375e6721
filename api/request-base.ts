/**
 * The base URL absolute links are written with. ARENA_PUBLIC_URL when it is set; otherwise the
 * address the request reached the arena at (its Host), so an arena browsed at 127.0.0.1:3000 does
 * not send people to localhost. Only a plain host and port are taken from the header.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

export interface BaseUrlSettings {
  publicUrl: string;
  publicUrlSet: boolean;
}

export function requestBase(request: FastifyRequest, settings: BaseUrlSettings): string {
  if (settings.publicUrlSet) return settings.publicUrl;
  const host = request.headers.host;
  return host && HOST.test(host) ? `http://${host}` : settings.publicUrl;
}

/**
 * For a scope whose answers are written with the configured base (the guides, llms.txt, the
 * well-known documents, the OpenAPI description, the protocol summary): each answer names the
 * request's base instead, when no public URL is set. These answers hold no text of anyone else's.
 */
export function rebaseAnswers(app: FastifyInstance, settings: BaseUrlSettings): void {
  if (settings.publicUrlSet) return;
  app.addHook('onSend', async (request: FastifyRequest, _reply: FastifyReply, payload: unknown) => {
    const base = requestBase(request, settings);
    if (typeof payload !== 'string' || base === settings.publicUrl) return payload;
    return payload.split(settings.publicUrl).join(base);
  });
}
