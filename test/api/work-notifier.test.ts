import { Client } from 'pg';
import pino from 'pino';
import { WorkNotifier } from '../../api/work-notifier';
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
const never = new AbortController().signal;
describe('WorkNotifier', () => {
  it("wakes the agent's waiting long-polls, and only that agent's", async () => {
    const mine = notifier.subscribe(1);
    const other = notifier.subscribe(2);
    const waits = [mine.wait(5_000, never), other.wait(1_000, never)];
    await notify(1);
    // true: woken by a notification; false: the wait ran out.
    expect(await Promise.all(waits)).toEqual([true, false]);
    mine.close();
    other.close();
  });

  it('keeps a notification that arrives while the poll checks the queue, until the next reset', async () => {
    const checking = notifier.subscribe(3);
    const witness = notifier.subscribe(3);
    checking.reset();
    // The notification arrives while `checking` is not waiting (it would be querying the database).
    const seen = witness.wait(5_000, never);
    await notify(3);
    await seen;
    expect(await checking.wait(5_000, never)).toBe(true);
    checking.reset();
    expect(await checking.wait(300, never)).toBe(false);
    checking.close();
    witness.close();
  });

  it('finds work queued while its LISTEN connection was down once it is back, then hears notifications again', async () => {
    const withWork = notifier.subscribe(4);
    const without = notifier.subscribe(7);
    const { rows } = await sql.query<{ pid: number }>(
      `select pid from pg_stat_activity where datname = current_database() and query ilike 'listen %' and pid <> pg_backend_pid()`,
    );
    expect(rows).toHaveLength(1);
    const waits = [withWork.wait(20_000, never), without.wait(4_000, never)];
    await sql.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
    await queueSilently(4);
    // Only the agent with queued work is woken; the other poll sleeps on (no needless queries).
    expect(await Promise.all(waits)).toEqual([true, false]);
    withWork.reset();
    const again = withWork.wait(5_000, never);
    await notify(4);
    expect(await again).toBe(true);
    withWork.close();
    without.close();
  }, 30_000);

  it('sweeps now and then for queued work whose notification was lost', async () => {
    const sub = notifier.subscribe(8);
    const waited = sub.wait(10_000, never);
    await queueSilently(8);
    expect(await waited).toBe(true);
    // Leased work is not waiting: no wake for it.
    await sql.query(`update work_items set state = 'leased' where agent_id = 8`);
    sub.reset();
    expect(await sub.wait(3 * SWEEP_MS, never)).toBe(false);
    sub.close();
  });

  it('ends waits when it closes, and when the poll is aborted', async () => {
    const aborted = new AbortController();
    const a = notifier.subscribe(5);
    const b = notifier.subscribe(6);
    const started = Date.now();
    const waits = [a.wait(10_000, aborted.signal), b.wait(10_000, never)];
    aborted.abort();
    await notifier.close();
    // The aborted poll was not notified; the other was woken by the close.
    expect(await Promise.all(waits)).toEqual([false, true]);
    expect(Date.now() - started).toBeLessThan(5_000);
    a.close();
    b.close();
  });
});
