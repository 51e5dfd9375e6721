/** Picks free TCP ports on the loopback interface, for tests and side-by-side servers. */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import net from 'node:net';

/** The lowest port picked: the range picked from runs from here up to the ephemeral range. */
const LOWEST = 10_000;
const ATTEMPTS = 50;

/**
 * The first port of the range the kernel takes the local port of every outgoing connection from
 * (Linux's `ip_local_port_range`, 32768 by default), or undefined where it cannot be read.
 */
export function ephemeralPortsStart(): number | undefined {
  try {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(start) && start > 0 ? start : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A port nothing listens on, below the ephemeral range. A port the kernel hands out for listening
 * on port 0 is one of that range, and until the server meant for it listens there, any outgoing
 * connection on the machine may take it as its own local port: a test's API process then failed
 * with EADDRINUSE. Where the range starts too low to leave room below it, the kernel's pick it is.
 */
export async function freePort(): Promise<number> {
  const start = ephemeralPortsStart();
  if (start !== undefined && start > LOWEST + 1_000) {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const port = randomInt(LOWEST, start);
      if ((await listenOn(port).catch(() => undefined)) !== undefined) return port;
    }
  }
  return listenOn(0);
}

/** Listens on 127.0.0.1:port a moment and gives the port it got back. */
function listenOn(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close();
        reject(new Error('could not read the port of a listening socket'));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
