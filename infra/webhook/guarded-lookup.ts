/** Connect-time SSRF check: the DNS lookup the webhook agent's sockets use, refusing inward answers. */
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isInwardAddress } from './address-guard';

export const PRIVATE_ADDRESS_CODE = 'ERR_ARENA_PRIVATE_ADDRESS';

/** Raised from inside the socket's lookup, so the connection is never attempted. */
export class PrivateAddressRefusal extends Error {
  readonly code = PRIVATE_ADDRESS_CODE;

  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(`refused: ${hostname} resolves to a private address (${address})`);
    this.name = 'PrivateAddressRefusal';
  }
}

/** Every address a name resolves to; the system resolver (getaddrinfo) unless a test brings its own. */
export type HostResolver = (hostname: string, options: dns.LookupAllOptions) => Promise<dns.LookupAddress[]>;

const systemResolver: HostResolver = (hostname, options) => dns.promises.lookup(hostname, options);

// Checked here rather than at save time because a name's answer can point inward, or change
// after the URL was saved (DNS rebinding); the socket connects to exactly what this returns.
export function guardedLookup(allowPrivate: boolean, resolve: HostResolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }).then(
      (addresses) => decide(addresses, null),
      (err: NodeJS.ErrnoException) => decide([], err),
    );
    function decide(addresses: dns.LookupAddress[], err: NodeJS.ErrnoException | null): void {
      if (err) return callback(err, '');
      const [first] = addresses;
      if (first === undefined) {
        const notFound: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        notFound.code = 'ENOTFOUND';
        return callback(notFound, '');
      }
      // Any inward answer refuses the name: with several answers the socket may try each of them.
      const inward = allowPrivate ? undefined : addresses.find((a) => isInwardAddress(a.address));
      if (inward) return callback(new PrivateAddressRefusal(hostname, inward.address), '');
      // net asks for every address when it races IPv4 and IPv6 (autoSelectFamily), else for one.
      if (options.all) return callback(null, addresses);
      return callback(null, first.address, first.family);
    }
  };
}
