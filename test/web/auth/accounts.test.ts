import { hash, verify } from '@node-rs/argon2';
import { MikroORM } from '@mikro-orm/postgresql';
import { expectedFailure } from '../../../api/errors';
import { ArenaError } from '../../../domain/errors';
import { issueApiKey } from '../../../services/api-keys';
import { changePassword, logIn, setPassword, signUp } from '../../../services/sign-in';
import { hashPassword, PASSWORD_POLICY } from '../../../services/passwords';
import { User } from '../../../infra/db/entities/user.entity';
import { UserPassword } from '../../../infra/db/entities/user-password.entity';
import { ormConfig } from '../../../infra/db/orm.config';
import { hashToken } from '../../../domain/credentials';
import { createTestDatabase, type TestDatabase } from '../../support/test-db';
import { freshEmail, GOOD_PASSWORD, newAccount } from './support';

// The real hashing and verification, wrapped so the tests can count the calls: timing them instead
// flakes on a loaded machine, and what keeps the answers equally slow is that each pays one of them.
jest.mock('../../../services/passwords', () => {
  const actual = jest.requireActual<typeof import('../../../services/passwords')>('../../../services/passwords');
  return { ...actual, hashPassword: jest.fn(actual.hashPassword) };
});
jest.mock('@node-rs/argon2', () => {
  const actual = jest.requireActual<typeof import('@node-rs/argon2')>('@node-rs/argon2');
  return { ...actual, verify: jest.fn(actual.verify) };
});
const hashing = hashPassword as jest.MockedFunction<typeof hashPassword>;
const verifying = verify as jest.MockedFunction<typeof verify>;

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

/** The domain error a call fails with, as the status and detail the API answers for it. */
async function rejection(promise: Promise<unknown>): Promise<{ statusCode: number; detail: string }> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ArenaError);
  const answer = expectedFailure(err)!;
  return { statusCode: answer.status, detail: answer.detail };
}

describe('signUp', () => {
  it('stores the email lowercase and only an argon2id hash of the password, in its own table', async () => {
    const email = freshEmail('Ada').toUpperCase();
    const user = await newAccount(em(), {
      email: `  ${email} `,
      password: GOOD_PASSWORD,
      origin: { ip: '10.1.2.3', network: '10.1.2.3' },
    });
    expect(user.email).toBe(email.toLowerCase());
    expect(user.username).toMatch(/^user-[0-9a-f]{8}$/);
    expect(user.registrationIp).toBe('10.1.2.3');
    expect([user.registrationNetwork, user.registrationCluster]).toEqual(['10.1.2.3', user.id]);
    const rows = await orm.em.getConnection().execute('select hash from user_passwords where user_id = ?', [user.id]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.hash).toMatch(/^\$argon2id\$/);
    expect(JSON.stringify(rows)).not.toContain(GOOD_PASSWORD);
  });

  it('takes a chosen username, normalised, and refuses a taken one with 409', async () => {
    const name = `Ada-${Date.now().toString(36)}`;
    const user = await newAccount(em(), { email: freshEmail(), password: GOOD_PASSWORD, username: name });
    expect(user.username).toBe(name.toLowerCase());
    const err = await rejection(
      signUp(em(), { email: freshEmail(), password: GOOD_PASSWORD, username: name.toUpperCase() }),
    );
    expect([err.statusCode, err.detail]).toEqual([409, `username ${name.toLowerCase()} is already taken`]);
  });

  it('gives null for an email that already has an account, whatever its case, and changes nothing', async () => {
    const email = freshEmail();
    const owner = await newAccount(em(), { email, password: GOOD_PASSWORD });
    const before = await em().count(User);
    expect(await signUp(em(), { email: email.toUpperCase(), password: 'another long password' })).toBeNull();
    expect(await em().count(User)).toBe(before);
    expect((await logIn(em(), { email, password: GOOD_PASSWORD })).id).toBe(owner.id);
    expect((await rejection(logIn(em(), { email, password: 'another long password' }))).statusCode).toBe(401);
  });

  it('hashes the password for an email that has an account, as for a new one, so timing tells nothing', async () => {
    const known = freshEmail();
    await newAccount(em(), { email: known, password: GOOD_PASSWORD });
    hashing.mockClear();
    expect(await signUp(em(), { email: known.toUpperCase(), password: 'another long password' })).toBeNull();
    expect(hashing).toHaveBeenCalledTimes(1);
    expect(await signUp(em(), { email: freshEmail(), password: 'another long password' })).not.toBeNull();
    expect(hashing).toHaveBeenCalledTimes(2);
  });

  it.each([
    ['a short password', { password: 'short' }, 'password: must be 10 to 200 characters'],
    ['a long password', { password: 'x'.repeat(201) }, 'password: must be 10 to 200 characters'],
    ['a malformed email', { email: 'not-an-email' }, 'email: must be a valid email address'],
    [
      'a bad username',
      { username: 'no spaces please' },
      'username: must be 3 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit',
    ],
  ])('answers 400 for %s', async (_label, change, detail) => {
    const err = await rejection(signUp(em(), { email: freshEmail(), password: GOOD_PASSWORD, ...change }));
    expect([err.statusCode, err.detail]).toEqual([400, detail]);
  });
});

describe('logIn', () => {
  it('accepts the right password with the email in any case', async () => {
    const email = freshEmail();
    const created = await newAccount(em(), { email, password: GOOD_PASSWORD });
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

  it('verifies one full-cost argon2id hash for an unknown email, as for a wrong password, so timing tells nothing', async () => {
    const email = freshEmail();
    await signUp(em(), { email, password: GOOD_PASSWORD });
    for (const attempt of [
      { email, password: 'wrong password here' },
      { email: freshEmail('nobody'), password: 'wrong password here' },
      { email: 'not an email', password: 'wrong password here' },
    ]) {
      verifying.mockClear();
      await expect(logIn(em(), attempt)).rejects.toThrow('wrong email or password');
      expect(verifying).toHaveBeenCalledTimes(1);
      expect(verifying.mock.calls[0]![0]).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    }
  });

  it('replaces a hash made under older parameters at the next log-in', async () => {
    const email = freshEmail();
    const user = await newAccount(em(), { email, password: GOOD_PASSWORD });
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

describe('changePassword', () => {
  it('needs the current password, then replaces it under the usual rule', async () => {
    const email = freshEmail();
    const work = em();
    const user = await newAccount(work, { email, password: GOOD_PASSWORD });
    const wrong = await rejection(
      changePassword(work, user, { current: 'not the password', replacement: 'a brand new password' }),
    );
    expect([wrong.statusCode, wrong.detail]).toEqual([400, 'current_password: is not your password']);
    const short = await rejection(changePassword(work, user, { current: GOOD_PASSWORD, replacement: 'short' }));
    expect([short.statusCode, short.detail]).toEqual([400, 'new_password: must be 10 to 200 characters']);
    expect((await logIn(em(), { email, password: GOOD_PASSWORD })).id).toBe(user.id);
    await changePassword(work, user, { current: GOOD_PASSWORD, replacement: 'a brand new password' });
    expect((await logIn(em(), { email, password: 'a brand new password' })).id).toBe(user.id);
    expect((await rejection(logIn(em(), { email, password: GOOD_PASSWORD }))).statusCode).toBe(401);
  });

  it('sets no first password on an account that has none: a session alone is not enough', async () => {
    const email = freshEmail();
    await orm.em.fork().persistAndFlush(em().create(User, { username: `idp2-${Date.now().toString(36)}`, email }));
    const work = em();
    const user = await work.findOneOrFail(User, { email });
    const err = await rejection(changePassword(work, user, { current: '', replacement: 'a brand new password' }));
    expect([err.statusCode, err.detail]).toEqual([
      400,
      'current_password: this account has no password; sign in with your identity provider',
    ]);
    expect(await em().count(UserPassword, { user: user.id })).toBe(0);
  });
});

describe('issueApiKey', () => {
  it('issues a key of the registration kind, stored only as its SHA-256 and its prefix, and usable as a bearer key', async () => {
    const work = em();
    const user = await newAccount(work, { email: freshEmail(), password: GOOD_PASSWORD });
    const { apiKey: key } = await issueApiKey(work, user);
    expect(key).toMatch(/^arena_[A-Za-z0-9_-]{43}$/);
    const rows = await orm.em
      .getConnection()
      .execute('select key_hash, key_prefix from api_keys where user_id = ?', [user.id]);
    expect(rows).toEqual([{ key_hash: hashToken(key), key_prefix: key.slice(0, 10) }]);
    expect((await em().getRepository(User).findByApiKeyHash(hashToken(key)))?.id).toBe(user.id);
  });
});
