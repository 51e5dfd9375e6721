/** A small stand-in for the arena's pull API on loopback: queues work, leases it on work/next, records results. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface Lease {
  workId: string;
  at: number;
}

export interface PostedResult {
  workId: string;
  body: Record<string, unknown>;
  secret: string | undefined;
  at: number;
}

export interface FakeArenaOptions {
  agentId?: string;
  secret?: string;
  /** Answers work/next instead of the queue when it returns a reply (n counts polls from 1). */
  onNext?: (n: number) => Reply | undefined;
  /** Answers a result instead of the default 200 when it returns a reply. */
  onResult?: (result: PostedResult) => Reply | undefined;
  /** GET /api/version's reply; by default protocol version 1, as the real arena. */
  version?: Reply;
}

export interface FakeArena {
  baseUrl: string;
  agentId: string;
  secret: string;
  polls: number;
  /** GET /api/version requests. */
  versionChecks: number;
  leases: Lease[];
  results: PostedResult[];
  /** Queues a work item; a poll that is being held gets it at once. Returns its work_id. */
  queue(fields?: Partial<Record<string, unknown>>): string;
  close(): Promise<void>;
}

interface HeldPoll {
  res: http.ServerResponse;
  timer: NodeJS.Timeout;
}

export async function startFakeArena(opts: FakeArenaOptions = {}): Promise<FakeArena> {
  const agentId = opts.agentId ?? '7';
  const secret = opts.secret ?? 'agsec_fake_arena_secret';
  const queued: Record<string, unknown>[] = [];
  const held: HeldPoll[] = [];
  let nextSession = 1;

  const send = (res: http.ServerResponse, reply: Reply) => {
    const text = reply.body === undefined ? '' : JSON.stringify(reply.body);
    res.writeHead(reply.status, { ...(text ? { 'content-type': 'application/json' } : {}), ...reply.headers });
    res.end(text);
  };
  const lease = (res: http.ServerResponse) => {
    const item = queued.shift()!;
    arena.leases.push({ workId: item.work_id as string, at: Date.now() });
    send(res, { status: 200, body: item });
  };
  // Like the real arena: a queued item goes to a poll that is still connected, never to one that left.
  const serveHeld = () => {
    while (queued.length > 0 && held.length > 0) {
      const poll = held.shift()!;
      clearTimeout(poll.timer);
      if (poll.res.destroyed) continue;
      lease(poll.res);
    }
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://arena.test');
      if (url.pathname === '/api/version' && req.method === 'GET') {
        arena.versionChecks += 1;
        return send(res, opts.version ?? { status: 200, body: { version: 1 } });
      }
      const given = req.headers['x-arena-secret'] as string | undefined;
      const next = /^\/api\/agents\/([^/]+)\/work\/next$/.exec(url.pathname);
      const result = /^\/api\/agents\/([^/]+)\/work\/([^/]+)\/result$/.exec(url.pathname);
      const id = next?.[1] ?? result?.[1];
      if (id === undefined) return send(res, { status: 404, body: { detail: 'route not found' } });
      if (id !== agentId) return send(res, { status: 404, body: { detail: 'agent not found' } });
      if (given !== secret) return send(res, { status: 403, body: { detail: 'invalid agent secret' } });

      if (next && req.method === 'GET') {
        arena.polls += 1;
        const scripted = opts.onNext?.(arena.polls);
        if (scripted) return send(res, scripted);
        if (queued.length > 0) return lease(res);
        const wait = Number(url.searchParams.get('wait') ?? '0');
        if (wait === 0) return send(res, { status: 204 });
        const poll: HeldPoll = {
          res,
          timer: setTimeout(() => {
            held.splice(held.indexOf(poll), 1);
            send(res, { status: 204 });
          }, wait * 1000),
        };
        held.push(poll);
        res.on('close', () => {
          clearTimeout(poll.timer);
          if (held.includes(poll)) held.splice(held.indexOf(poll), 1);
        });
        return;
      }
      if (result && req.method === 'POST') {
        const posted: PostedResult = {
          workId: decodeURIComponent(result[2]!),
          body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          secret: given,
          at: Date.now(),
        };
        const scripted = opts.onResult?.(posted);
        if (scripted) return send(res, scripted);
        arena.results.push(posted);
        return send(res, { status: 200, body: { work_id: posted.workId, recorded: true } });
      }
      send(res, { status: 405, body: { detail: 'method not allowed' } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const arena: FakeArena = {
    baseUrl: `http://127.0.0.1:${port}`,
    agentId,
    secret,
    polls: 0,
    versionChecks: 0,
    leases: [],
    results: [],
    queue(fields = {}) {
      const workId = `sandbox-${nextSession++}`;
      queued.push({
        prompt_id: `p-${workId}`,
        prompt: 'Say hi',
        category: 'chat',
        deadline_seconds: 30,
        kind: 'sandbox',
        work_id: workId,
        ...fields,
      });
      serveHeld();
      return workId;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const poll of held.splice(0)) clearTimeout(poll.timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return arena;
}
