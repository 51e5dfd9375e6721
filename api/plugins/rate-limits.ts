/**
 * Route `config` for @fastify/rate-limit (registered with `global: false` and the PostgreSQL store).
 * The key names the action and who spends it, so the API and the website, and every API process,
 * spend one budget per action: an account's, or a client address's where nobody is signed in.
 */
import type { errorResponseBuilderContext } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientAddress } from '../client-address';
import { ApiError } from '../errors';

function actor(request: FastifyRequest): string {
  // An API key's account, else the website's signed-in person; the address only as a last resort.
  const id = (request.account as { id?: number } | null)?.id ?? request.webUser?.id;
  return id === undefined ? `ip:${clientAddress(request)}` : `account:${id}`;
}

/**
 * Limiter options for at most `max` requests per `timeWindow` ('1 hour') under the key `keyGenerator`
 * gives. A refusal names the budget and its window, and the time left in it (the library's `after`,
 * also the `Retry-After` header), which is not the window: 20 minutes in, an hour's budget says 40.
 */
export function budget(max: number, timeWindow: string, keyGenerator: (request: FastifyRequest) => string) {
  return {
    max,
    timeWindow,
    keyGenerator,
    errorResponseBuilder: (_request: FastifyRequest, context: errorResponseBuilderContext) =>
      new ApiError(
        context.statusCode,
        `rate limit exceeded: at most ${context.max} requests per ${timeWindow}; retry in ${context.after}`,
      ),
  };
}

/** The limiter options of an account's budget for `action`, for `app.rateLimit` where only some requests spend it. */
export function accountBudget(action: string, max: number, timeWindow: string) {
  return budget(max, timeWindow, (request) => `${action}:${actor(request)}`);
}

/**
 * Every ping an owner causes (a new push or A2A agent, a new URL, a retest from the API or the
 * website) spends this one budget: each is an outbound request of up to 15 s whose outcome the owner reads.
 */
export function pingSpender(app: FastifyInstance, pingsPerMinute: number): SpendBudget {
  const pings = app.rateLimit(accountBudget('ping', pingsPerMinute, '1 minute'));
  return async (request, reply) => {
    await pings.call(app, request, reply);
  };
}

/** Spends one request of a budget, or refuses the request with a 429 (the limiter sends it). */
export type SpendBudget = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/** At most `max` of this action per account per `timeWindow`, checked after authentication so nobody spends another's budget. */
export function perAccount(action: string, max: number, timeWindow: string) {
  return { rateLimit: { ...accountBudget(action, max, timeWindow), hook: 'preHandler' as const } };
}

/** At most `max` of this action per account per minute. */
export function perAccountPerMinute(action: string, max: number) {
  return perAccount(action, max, '1 minute');
}

/** At most `max` of this action per client address (an IPv6 client by its /64) per `timeWindow`: for what needs no account. */
export function perAddress(action: string, max: number, timeWindow: string) {
  return { rateLimit: budget(max, timeWindow, (request) => `${action}:ip:${clientAddress(request)}`) };
}

/** The key of a limited route that names no action: a budget of its own per address, never another route's. */
export function routeAddressKey(request: FastifyRequest): string {
  return `${request.method} ${request.routeOptions.url}:ip:${clientAddress(request)}`;
}
