/** A real push agent on loopback for tests: records every request and answers as told. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type AgentBehaviour = (req: ReceivedRequest, res: http.ServerResponse) => void;

export const answer =
  (status = 200, body: unknown = { response: 'ok' }): AgentBehaviour =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

/** Never answers: the request hangs until the caller gives up. */
export const hang: AgentBehaviour = () => {};

export interface TestAgentServer {
  url: string;
  received: ReceivedRequest[];
  behave(behaviour: AgentBehaviour): void;
  close(): Promise<void>;
}

export async function startAgentServer(behaviour: AgentBehaviour = answer()): Promise<TestAgentServer> {
  let current = behaviour;
  const received: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(record);
      current(record, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    behave(next) {
      current = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A loopback port with nothing listening on it. */
export async function closedPortUrl(): Promise<string> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/hook`;
}
