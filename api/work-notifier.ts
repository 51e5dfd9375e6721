/**
 * Wakes pull long-polls when work is queued. One LISTEN connection per API process; the activity
 * that queues work NOTIFYs, so a wake-up reaches every API process. A long-poll subscribes before
 * it checks the queue, so a notification that arrives while it checks is not missed.
 *
 * A notification can still be lost: sent while the connection was down, or to a connection that
 * died without a sign. So the notifier sweeps: when it (re)connects and every `sweepMs`, one query
 * on its own connection finds which of the waiting agents have queued work, and wakes those. The
 * long-polls themselves never re-check by timer, so an idle one costs the database nothing.
 */
import { Client } from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { WORK_CHANNEL } from '../infra/db/work-channel';

const RECONNECT_MS = 2_000;
const SWEEP_MS = 25_000;

export class WorkNotifier {
  private readonly subscriptions = new Map<number, Set<WorkSubscriber>>();
  private client: Client | undefined;
  private closed = false;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping = false;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: FastifyBaseLogger,
    private readonly sweepMs = SWEEP_MS,
  ) {}

  /** Starts listening; a database that is down now is retried in the background. */
  async start(): Promise<void> {
    this.sweepTimer = setInterval(() => void this.sweep(), this.sweepMs).unref();
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
    // Notifications sent while nobody listened are gone: look for the work they announced.
    await this.sweep();
  }

  /** Wakes the waiting long-polls of every agent that has queued work. */
  private async sweep(): Promise<void> {
    const client = this.client;
    if (!client || this.sweeping || this.subscriptions.size === 0) return;
    this.sweeping = true;
    try {
      const { rows } = await client.query<{ agent_id: number }>(
        `select distinct agent_id from work_items where state = 'queued' and agent_id = any($1::int[])`,
        [[...this.subscriptions.keys()]],
      );
      for (const { agent_id: agentId } of rows) this.wake(agentId);
    } catch (err) {
      // A lost connection is reported (and reconnected) by its own events; the next sweep tries again.
      this.log.warn({ err: (err as Error).message }, 'work notifier sweep failed');
    } finally {
      this.sweeping = false;
    }
  }

  /** Notifies the subscriber whenever its agent may have queued work, until it unsubscribes. */
  subscribe(sub: WorkSubscriber): void {
    const set = this.subscriptions.get(sub.agentId) ?? new Set();
    this.subscriptions.set(sub.agentId, set);
    set.add(sub);
    if (this.closed) sub.notify();
  }

  unsubscribe(sub: WorkSubscriber): void {
    const set = this.subscriptions.get(sub.agentId);
    if (!set?.delete(sub)) return;
    if (set.size === 0) this.subscriptions.delete(sub.agentId);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearInterval(this.sweepTimer);
    for (const set of this.subscriptions.values()) for (const sub of set) sub.notify();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private wake(agentId: number): void {
    for (const sub of this.subscriptions.get(agentId) ?? []) sub.notify();
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

/** A waiting long-poll, as the notifier sees it: notified when its agent may have queued work. */
export interface WorkSubscriber {
  readonly agentId: number;
  notify(): void;
}
