/** Who the client is: which proxies Fastify believes about X-Forwarded-For, and the address a per-address limit counts. */
import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import type { TrustProxy } from '../infra/config';

/** An IPv6 client usually holds a whole /64, so it counts as one address. */
const IPV6_PREFIX = 64;

/**
 * Fastify's `trustProxy` for the setting. Fastify refuses hop counts (a client that reaches the
 * API directly could pass for a proxy), so a count becomes a function that trusts that many hops:
 * the operator who gives a count says nobody reaches the API except through those proxies.
 */
export function trustProxyOption(setting: TrustProxy): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof setting !== 'number') return setting;
  return setting === 0 ? false : (_address, hop) => hop < setting;
}

/** The client's address as limits count it: IPv4 (also when mapped into IPv6) as is, IPv6 by its /64. */
export function clientAddress(request: FastifyRequest): string {
  return normalizeIP(request.ip, IPV6_PREFIX);
}

/** The judge behind a request: its account and the client address per-address rules count. */
export function judgeOf(request: FastifyRequest, judgeId: number): { judgeId: number; network: string } {
  return { judgeId, network: clientAddress(request) };
}

/** Where a new account is made from: the request's address, and its network as per-address rules count it. */
export function clientOrigin(request: FastifyRequest): { ip: string; network: string } {
  return { ip: request.ip, network: clientAddress(request) };
}
