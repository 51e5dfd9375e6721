import { MikroORM } from '@mikro-orm/postgresql';
import {
  deleteExpiredWebSessions,
  endAllWebSessions,
  endWebSession,
  findWebSession,
  startWebSession,
} from '../../../services/web-sessions';
import type { User } from '../../../infra/db/entities/user.entity';
import { WebSession } from '../../../infra/db/entities/web-session.entity';
import { ormConfig } from '../../../infra/db/orm.config';
import { hashToken } from '../../../domain/credentials';
import { createTestDatabase, type TestDatabase } from '../../support/test-db';
import { freshEmail, GOOD_PASSWORD, newAccount, startAuthApp } from './support';
import { until } from '../../support/wait';

let db: TestDatabase;
let orm: MikroORM;
let user: User;
beforeAll(async () => {
  db = await createTestDatabase();
  orm = await MikroORM.init(ormConfig(db.url));
  user = await newAccount(orm.em.fork(), { email: freshEmail(), password: GOOD_PASSWORD });
});
afterAll(async () => {
  await orm.close();
  await db.drop();
});

const em = () => orm.em.fork();
const DAY = 24 * 60 * 60 * 1000;
const daysFromNow = (days: number) => new Date(Date.now() + days * DAY);

describe('web sessions', () => {
  it('keeps only the SHA-256 of the token, with a CSRF secret and a 30-day expiry', async () => {
    const now = new Date();
    const { token, session } = await startWebSession(em(), user, { now });
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const rows = await orm.em
      .getConnection()
      .execute<Array<{ id: string; csrf_secret: string; expires_at: Date }>>(
        'select * from web_sessions where user_id = ?',
        [user.id],
      );
    const row = rows.find((r) => r.id === session.id)!;
    expect(row.id).toBe(hashToken(token));
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(row.csrf_secret).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(new Date(row.expires_at).getTime() - now.getTime()).toBe(30 * DAY);
  });

  it('looks a session up by its token, with the account loaded', async () => {
    const { token } = await startWebSession(em(), user);
    const found = await findWebSession(em(), token);
    expect(found?.user.getEntity().email).toBe(user.email);
    expect(await findWebSession(em(), `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`)).toBeNull();
    expect(await findWebSession(em(), 'not a token')).toBeNull();
  });

  it('does not find a session past its expiry, and the next sign-in sweeps it away', async () => {
    const { token, session } = await startWebSession(em(), user, { days: 1, now: daysFromNow(-2) });
    expect(await findWebSession(em(), token)).toBeNull();
    expect(await findWebSession(em(), token, daysFromNow(-1.5))).not.toBeNull();
    await startWebSession(em(), user);
    expect(await em().findOne(WebSession, session.id)).toBeNull();
  });

  it('ends a session at logout: the same token no longer works', async () => {
    const { token } = await startWebSession(em(), user);
    expect(await endWebSession(em(), token)).toBe(true);
    expect(await findWebSession(em(), token)).toBeNull();
    expect(await endWebSession(em(), token)).toBe(false);
  });

  it('ends every session of an account at once', async () => {
    const other = await newAccount(em(), { email: freshEmail(), password: GOOD_PASSWORD });
    const tokens = [await startWebSession(em(), other), await startWebSession(em(), other)].map((s) => s.token);
    const kept = await startWebSession(em(), user);
    expect(await endAllWebSessions(em(), other)).toBe(2);
    for (const token of tokens) expect(await findWebSession(em(), token)).toBeNull();
    expect(await findWebSession(em(), kept.token)).not.toBeNull();
  });

  it('notes when a session was last seen, at most every few minutes', async () => {
    const started = new Date();
    const { token, session } = await startWebSession(em(), user, { now: started });
    await findWebSession(em(), token, new Date(started.getTime() + 60_000));
    expect((await em().findOneOrFail(WebSession, session.id)).lastSeenAt.getTime()).toBe(started.getTime());
    const later = new Date(started.getTime() + 10 * 60_000);
    await findWebSession(em(), token, later);
    expect((await em().findOneOrFail(WebSession, session.id)).lastSeenAt.getTime()).toBe(later.getTime());
  });

  it('deletes expired sessions in one sweep', async () => {
    const live = await startWebSession(em(), user);
    const other = await newAccount(em(), { email: freshEmail(), password: GOOD_PASSWORD });
    const old = await startWebSession(em(), other, { days: 1, now: daysFromNow(-3) });
    expect(await deleteExpiredWebSessions(em())).toBeGreaterThanOrEqual(1);
    expect(await em().findOne(WebSession, old.session.id)).toBeNull();
    expect(await em().findOne(WebSession, live.session.id)).not.toBeNull();
  });
});

describe('the expired-session sweep', () => {
  it('deletes expired sessions on a schedule while the app runs, and leaves live ones', async () => {
    const app = await startAuthApp({ sweepExpiredEveryMs: 50 });
    try {
      const work = () => app.orm.em.fork();
      const person = await newAccount(work(), { email: freshEmail(), password: GOOD_PASSWORD });
      // The live one first: starting a session also clears that person's expired ones.
      const live = await startWebSession(work(), person);
      const expired = await startWebSession(work(), person, { days: 1, now: daysFromNow(-3) });
      await until(
        async () => (await work().count(WebSession, { id: expired.session.id })) === 0,
        'the expired session to be swept',
        { timeoutMs: 5_000, everyMs: 20 },
      );
      expect(await work().count(WebSession, { id: live.session.id })).toBe(1);
    } finally {
      await app.close();
    }
  });
});
