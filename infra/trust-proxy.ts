/** Which proxies may write the client's address (ARENA_TRUST_PROXY), checked as the configuration reads it. */
import net from 'node:net';
import { z } from 'zod';

/** Which proxies may write the client's address: none, a number of hops in front of the API, or their addresses and ranges. */
export type TrustProxy = false | number | string[];
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyAddress(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = net.isIP(address);
  if (family === 0 || rest.length > 0) return false;
  return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
}

/** ARENA_TRUST_PROXY: `false`, a hop count, or addresses and ranges; `true` is refused with the reason. */
export const trustProxy = z.string().transform((value, ctx): TrustProxy => {
  const word = value.trim().toLowerCase();
  if (['false', 'no', '0'].includes(word)) return false;
  if (['true', 'yes'].includes(word)) {
    // Trusting every hop makes the left-most X-Forwarded-For entry, which the client writes, its address.
    ctx.addIssue({
      code: 'custom',
      message:
        'trusting every proxy lets any client pick its own address; give the number of proxies in front of the API (1) or their addresses and ranges (10.0.0.0/8,127.0.0.1)',
    });
    return z.NEVER;
  }
  if (/^\d+$/.test(word)) return Number(word);
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const wrong = entries.find((entry) => !isProxyAddress(entry));
  if (wrong !== undefined || entries.length === 0) {
    ctx.addIssue({
      code: 'custom',
      message: `"${wrong ?? value}" is not an address, a range (10.0.0.0/8) or a hop count`,
    });
    return z.NEVER;
  }
  return entries;
});
