/** Usernames: the rule every account name must pass, and the generated default. */
import { randomBytes } from 'node:crypto';

export const USERNAME_RULE = '3 to 32 characters of a-z, 0-9, _ and -, starting with a letter or digit';
const USERNAME = /^[a-z0-9][a-z0-9_-]{2,31}$/;
/** The rule before lowercasing, for schemas that check a name as it is sent. */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{2,31}$/;

/** Usernames are stored lowercase, so `Alice` and `alice` are one name. */
export function normaliseUsername(raw: string): string {
  return raw.trim().toLowerCase();
}

export function isValidUsername(normalised: string): boolean {
  return USERNAME.test(normalised);
}

export function generatedUsername(): string {
  return `user-${randomBytes(4).toString('hex')}`;
}
