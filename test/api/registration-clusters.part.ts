/**
 * Where accounts come from: each registration records its network (an IPv4 address, an IPv6 /64)
 * and its cluster (accounts from one network, each within a day of the one before), through the API
 * and the migration that filled them for older accounts.
 */
import {
  FILL_REGISTRATION_CLUSTERS,
  FILL_REGISTRATION_NETWORKS,
} from '../../infra/db/migrations/Migration20261127120000';
import { register, startTestApp, type TestApp } from '../support/test-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t.close());

const sql = <T = Record<string, unknown>>(q: string, p: unknown[] = []) => t.orm.em.getConnection().execute<T[]>(q, p);
const origin = async (userId: number) =>
  (
    await sql<{ network: string; cluster: number }>(
      `select registration_network as network, registration_cluster as cluster from users where id = ?`,
      [userId],
    )
  )[0]!;

describe('registration clusters', () => {
  it('puts accounts registered from one address within a day of each other in one cluster, the first one’s', async () => {
    const first = await register(t.app, '192.0.2.10');
    const second = await register(t.app, '192.0.2.10');
    const elsewhere = await register(t.app, '192.0.2.11');
    expect(await origin(first.userId)).toEqual({ network: '192.0.2.10', cluster: first.userId });
    expect(await origin(second.userId)).toEqual({ network: '192.0.2.10', cluster: first.userId });
    expect(await origin(elsewhere.userId)).toEqual({ network: '192.0.2.11', cluster: elsewhere.userId });

    // A day and more after the last one from that address: a cluster of its own.
    await sql(`update users set created_at = created_at - interval '25 hours' where id in (?, ?)`, [
      first.userId,
      second.userId,
    ]);
    const later = await register(t.app, '192.0.2.10');
    expect(await origin(later.userId)).toEqual({ network: '192.0.2.10', cluster: later.userId });
  });

  it('counts an IPv6 client by its /64, and an IPv4 address mapped into IPv6 as the IPv4 address', async () => {
    const one = await register(t.app, '2001:db8:7:1:aaaa::1');
    const two = await register(t.app, '2001:db8:7:1:bbbb:cccc::2');
    const mapped = await register(t.app, '::ffff:198.51.100.4');
    expect(await origin(one.userId)).toEqual({ network: '2001:db8:7:1::', cluster: one.userId });
    expect(await origin(two.userId)).toEqual({ network: '2001:db8:7:1::', cluster: one.userId });
    expect((await origin(mapped.userId)).network).toBe('198.51.100.4');
  });

  it('fills the networks and clusters of accounts made before they were recorded, by the same rule', async () => {
    const rows = await sql<{ id: number }>(
      `insert into users (username, registration_ip, created_at) values
         ('old-a', '10.9.9.9', now() - interval '5 days'), ('old-b', '10.9.9.9', now() - interval '4 days 12 hours'),
         ('old-c', '::ffff:10.9.9.9', now() - interval '2 days'), ('old-d', '2001:db8:9:9:1::1', now() - interval '1 day'),
         ('old-e', '2001:db8:9:9:2::2', now() - interval '1 day'), ('old-f', null, now())
       returning id`,
    );
    const ids = rows.map((r) => r.id);
    await sql(`update users set registration_network = null, registration_cluster = null where id = any(?::int[])`, [
      `{${ids.join(',')}}`,
    ]);
    await sql(FILL_REGISTRATION_NETWORKS);
    for (const statement of FILL_REGISTRATION_CLUSTERS) await sql(statement);
    const [a, b, c, d, e, f] = ids as [number, number, number, number, number, number];
    expect(await Promise.all(ids.map(origin))).toEqual([
      { network: '10.9.9.9', cluster: a },
      { network: '10.9.9.9', cluster: a },
      // Two and a half days after the one before: a cluster of its own.
      { network: '10.9.9.9', cluster: c },
      { network: '2001:db8:9:9::', cluster: d },
      { network: '2001:db8:9:9::', cluster: d },
      { network: null, cluster: f },
    ]);
    expect(b).toBeGreaterThan(a);
    expect(e).toBeGreaterThan(d);
  });
});
