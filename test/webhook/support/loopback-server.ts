/** A real HTTP server on a loopback port that records what webhook calls reached it. */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface CapturedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The client's side of the TCP connection: equal ports mean a reused connection. */
  remotePort: number;
}

export type Respond = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => void;

export interface LoopbackServer {
  /** Base URL, e.g. http://127.0.0.1:41234 */
  url: string;
  port: number;
  requests: CapturedRequest[];
  /** Resolves with the next request that arrives (or the first one already captured and not yet taken). */
  nextRequest(): Promise<CapturedRequest>;
  /** Resolves once no client socket is open: proves the client let go of its connection. */
  allConnectionsClosed(): Promise<void>;
  close(): Promise<void>;
}

export const answerJson =
  (status: number, payload: unknown): Respond =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  };

export async function startServer(respond: Respond, host = '127.0.0.1'): Promise<LoopbackServer> {
  const requests: CapturedRequest[] = [];
  const waiting: Array<(r: CapturedRequest) => void> = [];
  let taken = 0;
  const sockets = new Set<Socket>();
  const idleWaiters: Array<() => void> = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const captured = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body,
        remotePort: req.socket.remotePort ?? 0,
      };
      requests.push(captured);
      const waiter = waiting.shift();
      if (waiter) {
        taken += 1;
        waiter(captured);
      }
      respond(req, res, body);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      if (sockets.size === 0) idleWaiters.splice(0).forEach((done) => done());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;

  return {
    url: `http://${hostInUrl}:${port}`,
    port,
    requests,
    nextRequest: () =>
      taken < requests.length
        ? Promise.resolve(requests[taken++]!)
        : new Promise<CapturedRequest>((resolve) => waiting.push(resolve)),
    allConnectionsClosed: () =>
      sockets.size === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

/** A port that was just free and is now closed, so connecting to it is refused. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
