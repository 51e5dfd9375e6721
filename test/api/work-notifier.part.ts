import { Client } from 'pg';
import pino from 'pino';
import { WorkNotifier, type WorkSubscriber } from '../../api/work-notifier';
import { WORK_CHANNEL } from '../../infra/db/work-channel';
import { createTestDatabase, type TestDatabase } from '../support/test-db';

// The long-polls' wake-ups against a real PostgreSQL: NOTIFY on the work channel, a lost LISTEN connection.
let db: TestDatabase;
let sql: Client;
let notifier: WorkNotifier;

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new Client({ connectionString: db.url });
  await sql.connect();
  // Work items without their sessions and agents: the notifier reads nothing else.
  await sql.query('set session_replication_role = replica');
});
afterAll(async () => {
  await sql.end();
  await db.drop();
});
const SWEEP_MS = 500;
beforeEach(async () => {
  await sql.query('delete from work_items');
  notifier = new WorkNotifier(db.url, pino({ level: 'silent' }), SWEEP_MS);
  await notifier.start();
});
afterEach(() => notifier.close());

const notify = (agentId: number) => sql.query(`select pg_notify($1, $2)`, [WORK_CHANNEL, String(agentId)]);
let sessionSeq = 0;
/** Work queued for the agent with no notification: as if it was sent while nobody listened. */
const queueSilently = (agentId: number) =>
  sql.query(`insert into work_items (session_id, agent_id, state, created_at) values ($1, $2, 'queued', now())`, [
    ++sessionSeq,
    agentId,
  ]);
/** A long-poll as the notifier sees it: it remembers a notification until `next` or `forget` takes it. */
class Listener implements WorkSubscriber {
  private notified = false;
  private woken: (() => void) | undefined;

  constructor(readonly agentId: number) {
    notifier.subscribe(this);
  }

  notify(): void {
    this.notified = true;
    this.woken?.();
  }

  /** True once notified (at once if it was since the last call), false when `ms` pass first. */
  next(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const settle = (notified: boolean) => {
        clearTimeout(timer);
        this.woken = undefined;
        this.notified = false;
        resolve(notified);
      };
      const timer = setTimeout(() => settle(false), ms);
      this.woken = () => settle(true);
      if (this.notified) settle(true);
    });
  }

  forget(): void {
    this.notified = false;
  }

  close(): void {
    notifier.unsubscribe(this);
  }
}

describe('WorkNotifier', () => {
  it("wakes the agent's waiting long-polls, and only that agent's", async () => {
    const mine = new Listener(1);
    const alsoMine = new Listener(1);
    const other = new Listener(2);
    const waits = [mine.next(5_000), alsoMine.next(5_000), other.next(1_000)];
    await notify(1);
    // true: woken by a notification; false: the wait ran out.
    expect(await Promise.all(waits)).toEqual([true, true, false]);
    mine.close();
    alsoMine.close();
    other.close();
  });

  it('finds work queued while its LISTEN connection was down once it is back, then hears notifications again', async () => {
    const withWork = new Listener(4);
    const without = new Listener(7);
    const { rows } = await sql.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()`,
    );
    expect(rows).toHaveLength(1);
    const waits = [withWork.next(20_000), without.next(4_000)];
    await sql.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    await queueSilently(4);
    // Only the agent with queued work is woken; the other poll sleeps on (no needless queries).
    expect(await Promise.all(waits)).toEqual([true, false]);
    withWork.forget();
    const again = withWork.next(5_000);
    await notify(4);
    expect(await again).toBe(true);
    withWork.close();
    without.close();
  }, 30_000);

  it('sweeps now and then for queued work whose notification was lost', async () => {
    const sub = new Listener(8);
    const waited = sub.next(10_000);
    await queueSilently(8);
    expect(await waited).toBe(true);
    // Leased work is not waiting: no wake for it.
    await sql.query(`update work_items set state = 'leased' where agent_id = 8`);
    sub.forget();
    expect(await sub.next(3 * SWEEP_MS)).toBe(false);
    sub.close();
  });

  it('wakes every subscriber when it closes, but none that unsubscribed, and any that subscribes later at once', async () => {
    const gone = new Listener(5);
    const staying = new Listener(6);
    gone.close();
    const waits = [gone.next(1_000), staying.next(10_000)];
    await notifier.close();
    expect(await Promise.all(waits)).toEqual([false, true]);
    const late = new Listener(6);
    expect(await late.next(1_000)).toBe(true);
    staying.close();
    late.close();
  });
});
