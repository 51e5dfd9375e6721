/**
 * Wakes pull long-polls when work is queued. One LISTEN connection per API process; the activity
 * that queues work NOTIFYs, so a wake-up reaches every API process. Long-polls also re-check the
 * database every few seconds, so a notification lost while reconnecting only delays, never loses, work.
 */
import { Client } from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { WORK_CHANNEL } from '../infra/db/work-channel';

const RECONNECT_MS = 2_000;

export class WorkNotifier {
  private readonly waiters = new Map<number, Set<() => void>>();
  private client: Client | undefined;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** Starts listening; a database that is down now is retried in the background (long-polls still re-check). */
  async start(): Promise<void> {
    await this.connect().catch((err: Error) => {
      this.log.warn({ err: err.message }, 'work notifier could not connect; retrying');
      this.reconnectLater();
    });
  }

  private async connect(): Promise<void> {
    const client = new Client({ connectionString: this.databaseUrl });
    const lost = (reason: string) => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => undefined);
      this.log.warn({ reason }, 'work notifier connection lost; reconnecting');
      this.reconnectLater();
    };
    // Both stay attached for the client's whole life: an 'error' without a listener would crash the process.
    client.on('error', (err) => lost(err.message));
    client.on('end', () => lost('connection ended'));
    client.on('notification', (msg) => this.wake(Number(msg.payload)));
    try {
      await client.connect();
      await client.query(`listen ${WORK_CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    if (this.closed) return void (await client.end().catch(() => undefined));
    this.client = client;
  }

  /** Resolves when work is queued for the agent, after `ms`, or when `signal` aborts, whichever comes first. */
  wait(agentId: number, ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      const set = this.waiters.get(agentId) ?? new Set();
      this.waiters.set(agentId, set);
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(agentId) === set) this.waiters.delete(agentId);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      set.add(done);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    for (const set of this.waiters.values()) for (const done of [...set]) done();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private wake(agentId: number): void {
    for (const done of [...(this.waiters.get(agentId) ?? [])]) done();
  }

  private reconnectLater(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      this.connect().catch((err: Error) => {
        this.log.warn({ err: err.message }, 'work notifier could not reconnect; trying again');
        this.reconnectLater();
      });
    }, RECONNECT_MS);
  }
}
