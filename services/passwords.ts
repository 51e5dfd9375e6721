/** Website passwords: the length rule and argon2id hashing at the OWASP-recommended cost. */
import { randomBytes } from 'node:crypto';
import { hash, parseOptions, verify, type Algorithm, type Options } from '@node-rs/argon2';

export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;
export const PASSWORD_RULE = `${PASSWORD_MIN} to ${PASSWORD_MAX} characters`;

// `Algorithm` is a const enum in the typings and an empty object at run time, so the value is written out.
const ARGON2ID = 2 as Algorithm;

/** 19 MiB, 2 passes, 1 lane: OWASP's argon2id baseline (about 20-40 ms a hash). */
export const PASSWORD_POLICY: Options = { algorithm: ARGON2ID, memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** Counted in characters as a person sees them, not UTF-16 units. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length;
  return length < PASSWORD_MIN || length > PASSWORD_MAX ? `password: must be ${PASSWORD_RULE}` : null;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, PASSWORD_POLICY);
}

/** False for a wrong password and for a stored value that is not an argon2 hash at all. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

/** A hash made under an older policy is replaced at the next successful log-in. */
export function needsRehash(stored: string): boolean {
  try {
    const used = parseOptions(stored);
    return (
      used.algorithm !== ARGON2ID ||
      used.memoryCost !== PASSWORD_POLICY.memoryCost ||
      used.timeCost !== PASSWORD_POLICY.timeCost ||
      used.parallelism !== PASSWORD_POLICY.parallelism
    );
  } catch {
    return true;
  }
}

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same work as checking a real password, so a log-in for an unknown email takes as
 * long as one with a wrong password and the timing does not tell which emails have accounts.
 */
export async function spendPasswordCheck(password: string): Promise<void> {
  dummyHash ??= hashPassword(randomBytes(16).toString('base64url'));
  await verifyPassword(await dummyHash, password);
}
