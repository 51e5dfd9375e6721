import { hash } from '@node-rs/argon2';
import {
  hashPassword,
  needsRehash,
  passwordProblem,
  PASSWORD_POLICY,
  verifyPassword,
} from '../../../../services/passwords';

describe('password hashing', () => {
  it('round-trips through argon2id at the policy cost, with a fresh salt each time', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(stored).not.toContain('correct horse');
    expect(await verifyPassword(stored, 'correct horse battery')).toBe(true);
    expect(await verifyPassword(stored, 'correct horse batterY')).toBe(false);
    expect(await hashPassword('correct horse battery')).not.toBe(stored);
    expect(needsRehash(stored)).toBe(false);
  });

  it('treats a stored value that is not an argon2 hash as a wrong password, not an error', async () => {
    expect(await verifyPassword('not a hash', 'anything at all')).toBe(false);
    expect(needsRehash('not a hash')).toBe(true);
  });

  it('asks for a new hash when the stored one used other parameters', async () => {
    const weaker = await hash('correct horse battery', { ...PASSWORD_POLICY, timeCost: 1 });
    expect(await verifyPassword(weaker, 'correct horse battery')).toBe(true);
    expect(needsRehash(weaker)).toBe(true);
  });
});

describe('password rule', () => {
  it.each([
    ['9 characters', 'a'.repeat(9), true],
    ['10 characters', 'a'.repeat(10), false],
    ['200 characters', 'a'.repeat(200), false],
    ['201 characters', 'a'.repeat(201), true],
    // Ten emoji are twenty UTF-16 units but ten characters.
    ['10 emoji', '🔑'.repeat(10), false],
    ['5 emoji', '🔑'.repeat(5), true],
  ])('%s', (_label, password, broken) => {
    expect(passwordProblem(password)).toBe(broken ? 'password: must be 10 to 200 characters' : null);
  });
});
