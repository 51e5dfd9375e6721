/** Webhook SSRF guard: which addresses an outside webhook may never reach, and the save-time URL check. */
import { BlockList, isIP } from 'node:net';

// Everything here is either this host, the operator's own network, or not a unicast destination.
const inwardV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 reaches the local host on Linux
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT, often the cloud provider's internal side
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, home of cloud metadata endpoints
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3], // multicast, reserved and broadcast: 224.0.0.0 up to 255.255.255.255
] as const) {
  inwardV4.addSubnet(network, prefix, 'ipv4');
}

const inwardV6 = new BlockList();
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates into the operator's own network
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local, still routed inside some networks
  ['ff00::', 8], // multicast
] as const) {
  inwardV6.addSubnet(network, prefix, 'ipv6');
}

function parseV6(ip: string): number[] {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    // A trailing dotted quad (::ffff:1.2.3.4) fills the last two groups.
    // isIP accepted the address, so the quad has four parts; the defaults only satisfy the type.
    const [a = 0, b = 0, c = 0, d = 0] = text
      .slice(lastColon + 1)
      .split('.')
      .map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

// parseV6 gives eight groups for any address isIP accepted; the defaults only satisfy the type.
function v4FromGroups(high = 0, low = 0): string {
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

// IPv6 forms that carry an IPv4 address a packet may end up at; judged by that address.
function embeddedV4(groups: number[]): string | undefined {
  const zeroUpTo = (n: number) => groups.slice(0, n).every((g) => g === 0);
  if (zeroUpTo(5) && groups[5] === 0xffff) return v4FromGroups(groups[6], groups[7]); // ::ffff:a.b.c.d mapped
  if (zeroUpTo(4) && groups[4] === 0xffff && groups[5] === 0) return v4FromGroups(groups[6], groups[7]); // SIIT
  if (zeroUpTo(6)) return v4FromGroups(groups[6], groups[7]); // ::a.b.c.d compatible (and :: / ::1)
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) {
    return v4FromGroups(groups[6], groups[7]); // NAT64 well-known prefix 64:ff9b::/96
  }
  if (groups[0] === 0x2002) return v4FromGroups(groups[1], groups[2]); // 6to4
  return undefined;
}

export function isInwardAddress(ip: string): boolean {
  // Brackets come from URLs and a zone (%eth0) from link-local answers; neither changes the address.
  const [bare = ''] = (ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip).split('%');
  const family = isIP(bare);
  if (family === 4) return inwardV4.check(bare, 'ipv4');
  // Anything that is not a plain IP cannot be judged; treat it as inward rather than let it through.
  if (family !== 6) return true;
  const groups = parseV6(bare.toLowerCase());
  const v4 = embeddedV4(groups);
  if (v4 !== undefined && inwardV4.check(v4, 'ipv4')) return true;
  return inwardV6.check(bare, 'ipv6');
}

export function isLocalhostName(hostname: string): boolean {
  // A trailing dot is the same name to a resolver ("localhost." is localhost).
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

export type WebhookUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** Checks an outbound address; `field` names it in the reasons (`webhook_url` unless said). */
export function checkWebhookUrl(raw: string, opts: { allowPrivate: boolean; field?: string }): WebhookUrlCheck {
  const field = opts.field ?? 'webhook_url';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `${field} is not a valid URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `${field} must use http or https` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: `${field} must not contain a user name or password` };
  }
  if (url.hostname === '') {
    return { ok: false, reason: `${field} must include a host` };
  }
  if (opts.allowPrivate) return { ok: true, url };

  if (isLocalhostName(url.hostname)) {
    return { ok: false, reason: `${field} points to a loopback host (${url.hostname})` };
  }
  // WHATWG parsing has already turned 2130706433, 0x7f000001, 127.1 and 0177.0.0.1 into
  // dotted quads, so a literal IP in any spelling reaches this check in its canonical form.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  if (isIP(host) !== 0 && isInwardAddress(host)) {
    return { ok: false, reason: `${field} points to a private or loopback address (${host})` };
  }
  return { ok: true, url };
}
