/**
 * Push agents for the bench, in a process of their own so that the load generator never delays
 * the moment a webhook POST is seen: loopback HTTP servers that answer at once (or, for the
 * deadline figure, never answer sandbox prompts) and report each arrival's time over IPC.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { wallNow } from '../lib/clock';

export type FarmBehaviour = 'answer' | 'hang';

export type FarmRequest = { start: FarmBehaviour[] } | { stop: true };

export type FarmMessage = { ready: string[] } | { arrivals: Array<[string, number]> };

const ANSWER = JSON.stringify({ response: 'ok' });
/** Arrivals are sent in batches: one IPC message per request would cost the farm more than the request. */
const FLUSH_MS = 20;

const servers: http.Server[] = [];
let pending: Array<[string, number]> = [];

function send(msg: FarmMessage): void {
  process.send?.(msg);
}

setInterval(() => {
  if (pending.length === 0) return;
  send({ arrivals: pending });
  pending = [];
}, FLUSH_MS).unref();

function startServer(behaviour: FarmBehaviour): Promise<string> {
  const server = http.createServer((req, res) => {
    const at = wallNow();
    const delivery = String(req.headers['x-arena-delivery'] ?? '');
    pending.push([delivery, at]);
    // The body is read to the end, as a real agent would before answering.
    req.resume();
    req.on('end', () => {
      // A hanging agent still passes its ping and its gym, or it would never get sandbox prompts.
      if (behaviour === 'hang' && delivery.startsWith('sandbox-')) return;
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(ANSWER) });
      res.end(ANSWER);
    });
  });
  server.keepAliveTimeout = 60_000;
  servers.push(server);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', 1024, () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`),
    ),
  );
}

process.on('message', (msg: FarmRequest) => {
  if ('start' in msg) {
    void Promise.all(msg.start.map(startServer)).then((urls) => send({ ready: urls }));
  } else if ('stop' in msg) {
    for (const server of servers) {
      server.closeAllConnections();
      server.close();
    }
    process.exit(0);
  }
});
process.on('disconnect', () => process.exit(0));
