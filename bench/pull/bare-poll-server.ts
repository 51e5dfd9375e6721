/**
 * The long-poll baseline: a bare Node HTTP server that holds each GET /wait/<agent> until a
 * PostgreSQL NOTIFY names that agent (or 50 s pass, then 204, as the arena's wait does), on the
 * same LISTEN/NOTIFY mechanism the arena uses, with no framework, queries or authentication.
 */
import http from 'node:http';
import { Client } from 'pg';
import { BARE_CHANNEL } from './bare-channel';

const WAIT_MS = 50_000;

async function main(): Promise<void> {
  const waiting = new Map<number, http.ServerResponse>();
  const listener = new Client({ connectionString: process.env.DATABASE_URL });
  listener.on('error', () => undefined);
  await listener.connect();
  await listener.query(`listen ${BARE_CHANNEL}`);
  listener.on('notification', (msg) => {
    const id = Number(msg.payload);
    const res = waiting.get(id);
    if (!res) return;
    waiting.delete(id);
    const body = JSON.stringify({ work_id: `bare-${id}` });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });

  const server = http.createServer((req, res) => {
    if (req.url === '/stats') {
      res.end(JSON.stringify({ waiting: waiting.size }));
      return;
    }
    const match = /^\/wait\/(\d+)/.exec(req.url ?? '');
    if (!match) {
      res.writeHead(404).end();
      return;
    }
    const id = Number(match[1]);
    waiting.set(id, res);
    const timer = setTimeout(() => {
      if (waiting.get(id) !== res) return;
      waiting.delete(id);
      res.writeHead(204).end();
    }, WAIT_MS);
    res.once('close', () => {
      clearTimeout(timer);
      if (waiting.get(id) === res) waiting.delete(id);
    });
  });
  server.keepAliveTimeout = 120_000;
  server.listen(Number(process.env.BENCH_PORT), '127.0.0.1', 4096, () => process.send?.({ ready: true }));
  process.once('SIGTERM', () => {
    server.closeAllConnections();
    server.close();
    void listener.end().finally(() => process.exit(0));
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
