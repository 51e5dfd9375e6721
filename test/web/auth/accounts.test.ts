import { hash } from '@node-rs/argon2';
import { MikroORM } from '@mikro-orm/postgresql';
import { ApiError } from '../../../api/errors';
import { issueApiKeyFor, logIn, setPassword, signUp } from '../../../api/web/auth/accounts';
import { PASSWORD_POLICY } from '../../../api/web/auth/passwords';
import { User } from '../../../infra/db/entities/user.entity';
import { UserPassword } from '../../../infra/db/entities/user-password.entity';
import { ormConfig } from '../../../infra/db/orm.config';
import { hashToken } from '../../../infra/domain/credentials';
import { createTestDatabase, type TestDatabase } from '../../support/test-db';
import { freshEmail, GOOD_PASSWORD } from './support';

let db: TestDatabase;
let orm: MikroORM;
beforeAll(async () => {
  db = await createTestDatabase();
  orm = await MikroORM.init(ormConfig(db.url));
});
afterAll(async () => {
  await orm.close();
  await db.drop();
});

const em = () => orm.em.fork();

async function rejection(promise: Promise<unknown>): Promise<ApiError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(ApiError);
  return err as ApiError;
}

describe('signUp', () => {
  it('stores the email lowercase and only an argon2id hash of the password, in its own table', async () => {
    const email = freshEmail('Ada').toUpperCase();
    const user = await signUp(em(), { email: `  ${email} `, password: GOOD_PASSWORD, ip: '10.1.2.3' });
    expect(user.email).toBe(email.toLowerCase());
    expect(user.username).toMatch(/^user-[0-9a-f]{8}$/);
    expect(user.registrationIp).toBe('10.1.2.3');
    const rows = await orm.em.getConnection().execute('select hash from user_passwords where user_id = ?', [user.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0].hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(rows)).not.toContain(GOOD_PASSWORD);
  });

  it('takes a chosen username, normalised, and refuses a taken one with 409', async () => {
    const name = `Ada-${Date.now().toString(36)}`;
    const user = await signUp(em(), { email: freshEmail(), password: GOOD_PASSWORD, username: name });
    expect(user.username).toBe(name.toLowerCase());
    const err = await rejection(signUp(em(), { email: freshEmail(), password: GOOD_PASSWORD, username: name.toUpperCase() }));
    expect([err.statusCode, err.detail]).toEqual([409, `username ${name.toLowerCase()} is already taken`]);
  });

  it('refuses a taken email with 409, whatever its case, and creates nothing', async () => {
    const email = freshEmail();
    await signUp(em(), { email, password: GOOD_PASSWORD });
    const before = await em().count(User);
    const err = await rejection(signUp(em(), { email: email.toUpperCase(), password: 'another long password' }));
    expect([err.statusCode, err.detail]).toEqual([409, 'an account with this email already exists; log in instead']);
    expect(await em().count(User)).toBe(before);
  });

  it.each([
    ['a short password', { password: 'short' }, 'password: must be 10 to 200 characters'],
    ['a long password', { password: 'x'.repeat(201) }, 'password: must be 10 to 200 characters'],
    ['a malformed email', { email: 'not-an-email' }, 'email: must be a valid email address'],
    ['a bad username', { username: 'no spaces please' }, 'username: must be 3 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit'],
  ])('answers 400 for %s', async (_label, change, detail) => {
    const err = await rejection(signUp(em(), { email: freshEmail(), password: GOOD_PASSWORD, ...change }));
    expect([err.statusCode, err.detail]).toEqual([400, detail]);
  });
});

describe('logIn', () => {
  it('accepts the right password with the email in any case', async () => {
    const email = freshEmail();
    const created = await signUp(em(), { email, password: GOOD_PASSWORD });
    const user = await logIn(em(), { email: ` ${email.toUpperCase()}`, password: GOOD_PASSWORD });
    expect(user.id).toBe(created.id);
  });

  it('gives one message for a wrong password, an unknown email and an account without a password', async () => {
    const email = freshEmail();
    await signUp(em(), { email, password: GOOD_PASSWORD });
    const noPassword = em().create(User, { username: `nopw-${Date.now().toString(36)}`, email: freshEmail() });
    await orm.em.fork().persistAndFlush(noPassword);
    for (const attempt of [
      { email, password: 'wrong password here' },
      { email: freshEmail('nobody'), password: GOOD_PASSWORD },
      { email: noPassword.email!, password: GOOD_PASSWORD },
      { email: 'not an email', password: GOOD_PASSWORD },
    ]) {
      const err = await rejection(logIn(em(), attempt));
      expect([err.statusCode, err.detail]).toEqual([401, 'wrong email or password']);
    }
  });

  it('spends as long on an unknown email as on a wrong password', async () => {
    const email = freshEmail();
    await signUp(em(), { email, password: GOOD_PASSWORD });
    const timed = async (attempt: { email: string; password: string }) => {
      const times: number[] = [];
      for (let i = 0; i < 5; i++) {
        const started = process.hrtime.bigint();
        await logIn(em(), attempt).catch(() => undefined);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
      return times.sort((a, b) => a - b)[2]!;
    };
    const wrongPassword = await timed({ email, password: 'wrong password here' });
    const unknownEmail = await timed({ email: freshEmail('nobody'), password: 'wrong password here' });
    // Both are dominated by one argon2id verification (tens of ms), not by the database.
    expect(unknownEmail).toBeGreaterThan(wrongPassword / 3);
    expect(unknownEmail).toBeLessThan(wrongPassword * 3);
  });

  it('replaces a hash made under older parameters at the next log-in', async () => {
    const email = freshEmail();
    const user = await signUp(em(), { email, password: GOOD_PASSWORD });
    const weak = await hash(GOOD_PASSWORD, { ...PASSWORD_POLICY, timeCost: 1 });
    await em().nativeUpdate(UserPassword, { user: user.id }, { hash: weak });
    await logIn(em(), { email, password: GOOD_PASSWORD });
    const stored = await em().findOneOrFail(UserPassword, { user: user.id });
    expect(stored.hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });
});

describe('setPassword', () => {
  it('gives an account without a password one, and replaces an existing one', async () => {
    const email = freshEmail();
    const user = em().create(User, { username: `idp-${Date.now().toString(36)}`, email });
    await orm.em.fork().persistAndFlush(user);
    const work = em();
    await setPassword(work, await work.findOneOrFail(User, user.id), GOOD_PASSWORD);
    expect((await logIn(em(), { email, password: GOOD_PASSWORD })).id).toBe(user.id);
    const again = em();
    await setPassword(again, await again.findOneOrFail(User, user.id), 'a brand new password');
    expect((await logIn(em(), { email, password: 'a brand new password' })).id).toBe(user.id);
    expect((await rejection(setPassword(em(), user, 'short'))).statusCode).toBe(400);
  });
});

describe('issueApiKeyFor', () => {
  it('issues a key of the registration kind, stored only as its SHA-256 and usable as a bearer key', async () => {
    const work = em();
    const user = await signUp(work, { email: freshEmail(), password: GOOD_PASSWORD });
    const key = await issueApiKeyFor(work, user);
    expect(key).toMatch(/^arena_[A-Za-z0-9_-]{43}$/);
    const rows = await orm.em.getConnection().execute('select key_hash from api_keys where user_id = ?', [user.id]);
    expect(rows).toEqual([{ key_hash: hashToken(key) }]);
    expect((await em().getRepository(User).findByApiKeyHash(hashToken(key)))?.id).toBe(user.id);
  });
});
