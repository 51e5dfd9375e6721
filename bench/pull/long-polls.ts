/** The load generator for the pull figure: thousands of runners, each holding one long-poll and polling again when it ends. */
import http from 'node:http';
import { wallNow } from '../lib/clock';

export interface LongPollTarget {
  port: number;
  path(agentId: number): string;
  headers(agentId: number): Record<string, string>;
}

export type WorkHandler = (agentId: number, body: unknown, receivedAt: number) => Promise<void> | void;

export class LongPolls {
  /** One socket per waiting request, kept alive so a renewed poll reuses it as a runner would. */
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 100_000 });
  private stopping = false;
  /** Requests sent and not yet answered. */
  open = 0;
  errors = 0;
  lastError = '';
  answered = 0;

  constructor(
    private readonly target: LongPollTarget,
    private readonly onWork: WorkHandler,
  ) {}

  start(agentId: number): void {
    if (this.stopping) return;
    let settled = false;
    const finish = () => {
      if (settled) return false;
      settled = true;
      this.open--;
      return true;
    };
    const req = http.request(
      {
        host: '127.0.0.1',
        port: this.target.port,
        path: this.target.path(agentId),
        method: 'GET',
        headers: this.target.headers(agentId),
        agent: this.agent,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          if (!finish()) return;
          const at = wallNow();
          if (res.statusCode === 200) {
            this.answered++;
            const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            void Promise.resolve(this.onWork(agentId, body, at)).finally(() => this.start(agentId));
          } else if (res.statusCode === 204) {
            this.start(agentId);
          } else {
            this.fail(`HTTP ${res.statusCode}`, agentId);
          }
        });
      },
    );
    req.on('error', (err) => {
      if (finish()) this.fail(err.message, agentId);
    });
    this.open++;
    req.end();
  }

  private fail(message: string, agentId: number): void {
    if (this.stopping) return;
    this.errors++;
    this.lastError = message;
    setTimeout(() => this.start(agentId), 1_000);
  }

  /** Drops every connection: the servers see their clients leave. */
  stop(): void {
    this.stopping = true;
    this.agent.destroy();
  }
}
