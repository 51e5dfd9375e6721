/**
 * Route `config` for @fastify/rate-limit (registered with `global: false`) keyed by who is acting,
 * not by address: checked after authentication (preHandler), so nobody spends another's budget.
 */
import type { FastifyRequest } from 'fastify';

function actor(request: FastifyRequest): string {
  // An API key's account, else the website's signed-in person; the address only as a last resort.
  const id = (request.account as { id?: number } | null)?.id ?? request.webUser?.id;
  return id === undefined ? `ip:${request.ip}` : `account:${id}`;
}

/** At most `max` of this action per account per minute. */
export function perAccountPerMinute(action: string, max: number) {
  return { rateLimit: { max, timeWindow: '1 minute', hook: 'preHandler' as const, keyGenerator: (request: FastifyRequest) => `${action}:${actor(request)}` } };
}
