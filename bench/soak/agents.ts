/**
 * The soak's agents, in the soak's own process: loopback push agents and pull runners, each with a
 * behaviour for sandbox prompts (fast, slow, failing or never answering). A runner given a coding
 * session works it: a file, a command, the submit. Gym prompts and pings are
 * always answered at once, so every agent stays active and gets sandbox prompts. Each push
 * request is counted by its delivery id (`X-Arena-Delivery`): a prompt that reaches an agent twice
 * is a duplicate the worker's logs alone might not show.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from '../lib/clock';

export const BEHAVIOURS = ['fast', 'slow', 'failing', 'never'] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

/** How long a slow agent takes to answer: well inside the soak's deadlines. */
export const SLOW_MS = 3_000;

export interface PushAgents {
  /** One webhook per agent, in the order of the behaviours given. */
  urls: string[];
  /** Requests received per agent (its index) and delivery id, as `<index> <delivery id>`. */
  received: Map<string, number>;
  close(): Promise<void>;
}

/** One loopback server per agent: delivery ids are only unique per agent (a gym's prompts are numbered per agent). */
export async function startPushAgents(behaviours: Behaviour[]): Promise<PushAgents> {
  const received = new Map<string, number>();
  const servers: http.Server[] = [];
  const urls: string[] = [];
  for (const [index, behaviour] of behaviours.entries()) {
    const server = http.createServer((req, res) => {
      const delivery = String(req.headers['x-arena-delivery'] ?? '');
      const key = `${index} ${delivery}`;
      if (delivery) received.set(key, (received.get(key) ?? 0) + 1);
      req.resume();
      req.on('end', () => {
        const reply = (status: number, body: unknown) => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (!delivery.startsWith('sandbox-') || behaviour === 'fast') return reply(200, { response: 'ok' });
        if (behaviour === 'slow') return void setTimeout(() => reply(200, { response: 'slow ok' }), SLOW_MS);
        if (behaviour === 'failing') return reply(500, { error: 'agent failed' });
        // never: the request stays open until the arena gives up at the deadline.
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
  }
  return {
    urls,
    received,
    async close() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };
}

export interface PullAgent {
  id: number;
  secret: string;
  behaviour: Behaviour;
}

export interface RequestSample {
  kind: string;
  /** Start, ms since the run's load began. */
  at: number;
  ms: number;
  /** HTTP status, or 0 when the request failed (connection refused, timeout). */
  status: number;
}

/**
 * One runner per pull agent: long-polls for work and answers by its behaviour. Results are posted
 * until the arena answers them (a 503 or a refused connection while the API or a dependency is
 * down is retried), so an answered item is never dropped by the runner.
 */
export class PullRunners {
  private running = true;
  private readonly loops: Promise<void>[] = [];
  private readonly posts = new Set<Promise<void>>();

  constructor(
    private readonly apiUrl: string,
    private readonly record: (sample: Omit<RequestSample, 'at'> & { start: number }) => void,
  ) {}

  start(agents: PullAgent[]): void {
    for (const agent of agents) this.loops.push(this.loop(agent));
  }

  private async loop(agent: PullAgent): Promise<void> {
    const headers = { 'x-arena-secret': agent.secret };
    while (this.running) {
      let res: Response;
      try {
        res = await fetch(`${this.apiUrl}/api/agents/${agent.id}/work/next?wait=5`, {
          headers,
          signal: AbortSignal.timeout(30_000),
        });
      } catch {
        await sleep(500);
        continue;
      }
      if (res.status !== 200) {
        await res.body?.cancel();
        if (res.status !== 204) await sleep(500);
        continue;
      }
      const work = (await res.json()) as { work_id: string; kind?: string; sandbox?: { api: string; token: string } };
      if (work.sandbox) {
        this.track(this.code(work.sandbox));
        continue;
      }
      const gym = !work.work_id.startsWith('sandbox-');
      const behaviour = gym ? 'fast' : agent.behaviour;
      if (behaviour === 'never') continue;
      const body = behaviour === 'failing' ? { error: 'runner failed' } : { response: `answer to ${work.work_id}` };
      this.track(
        (async () => {
          if (behaviour === 'slow') await sleep(3_000);
          await this.post(agent, work.work_id, body);
        })(),
      );
    }
  }

  private track(post: Promise<void>): void {
    this.posts.add(post);
    void post.finally(() => this.posts.delete(post));
  }

  /**
   * A coding session as an agent works one: a file written, a command run, then the submit (the
   * hidden tests run and the workspace goes). A step refused while something is down is not
   * retried: the session then ends at its deadline, as an agent that gave up.
   */
  private async code(sandbox: { api: string; token: string }): Promise<void> {
    const call = async (kind: string, method: string, url: string, body?: unknown) => {
      const start = Date.now();
      let status = 0;
      try {
        const res = await fetch(url, {
          method,
          headers: {
            authorization: `Bearer ${sandbox.token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(60_000),
        });
        status = res.status;
        await res.body?.cancel();
      } catch {
        status = 0;
      }
      this.record({ kind, start, ms: Date.now() - start, status });
      return status >= 200 && status < 300;
    };
    const steps = [
      () => call('coding step', 'PUT', `${sandbox.api}/files?path=notes.txt`, { content: 'soak\n' }),
      () => call('coding step', 'POST', `${sandbox.api}/exec`, { command: ['cat', 'notes.txt'] }),
    ];
    for (const step of steps) if (!(await step())) return;
    await call('coding submit', 'POST', `${sandbox.api}/submit`);
  }

  private async post(agent: PullAgent, workId: string, body: object): Promise<void> {
    const until = Date.now() + 120_000;
    while (Date.now() < until) {
      const start = Date.now();
      let status = 0;
      try {
        const res = await fetch(`${this.apiUrl}/api/agents/${agent.id}/work/${workId}/result`, {
          method: 'POST',
          headers: { 'x-arena-secret': agent.secret, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(30_000),
        });
        status = res.status;
        await res.body?.cancel();
      } catch {
        status = 0;
      }
      this.record({ kind: 'work result', start, ms: Date.now() - start, status });
      // 200 recorded; 409 or 404: the item is settled already (expired, or a repeat): nothing to retry.
      if (status === 200 || status === 409 || status === 404 || status === 400) return;
      await sleep(1_000);
    }
  }

  /** Stops polling; results already being posted are finished first. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    await Promise.all([...this.posts]);
  }
}
