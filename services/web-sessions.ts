/** Server-side website sessions: started at log-in, looked up per request by the cookie's token, ended at logout or expiry. */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { User } from '../infra/db/entities/user.entity';
import { WebSession } from '../infra/db/entities/web-session.entity';
import { hashToken } from '../domain/credentials';

export const DEFAULT_SESSION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;
/** `last_seen_at` is a hint for people reviewing their sessions, so it is written at most this often. */
const SEEN_RESOLUTION_MS = 5 * 60 * 1000;
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

export interface StartedWebSession {
  /** Goes into the cookie and nowhere else; the database keeps only its SHA-256. */
  token: string;
  session: WebSession;
}

export async function startWebSession(
  em: EntityManager,
  user: User,
  { days = DEFAULT_SESSION_DAYS, now = new Date() }: { days?: number; now?: Date } = {},
): Promise<StartedWebSession> {
  const token = randomBytes(32).toString('base64url');
  const session = em.create(WebSession, {
    id: hashToken(token),
    user,
    csrfSecret: randomBytes(24).toString('base64url'),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: new Date(now.getTime() + days * DAY_MS),
  });
  await em.flush();
  // Housekeeping while we are here: this account's sessions that ran out.
  await em.nativeDelete(WebSession, { user, expiresAt: { $lte: now } });
  return { token, session };
}

/** The live session for a cookie token, with its user loaded; null for an unknown, ended or expired one. */
export async function findWebSession(em: EntityManager, token: string, now = new Date()): Promise<WebSession | null> {
  if (!TOKEN_SHAPE.test(token)) return null;
  const session = await em.findOne(
    WebSession,
    { id: hashToken(token), expiresAt: { $gt: now } },
    { populate: ['user'] },
  );
  if (session && now.getTime() - session.lastSeenAt.getTime() > SEEN_RESOLUTION_MS) {
    session.lastSeenAt = now;
    await em.nativeUpdate(WebSession, { id: session.id }, { lastSeenAt: now });
  }
  return session;
}

/** Logout: the row goes, so the cookie is worthless even if it was copied. */
export async function endWebSession(em: EntityManager, token: string): Promise<boolean> {
  if (!TOKEN_SHAPE.test(token)) return false;
  return (await em.nativeDelete(WebSession, { id: hashToken(token) })) > 0;
}

/** Signs an account out everywhere (after a password change, or on request). */
export async function endAllWebSessions(em: EntityManager, user: User): Promise<number> {
  return em.nativeDelete(WebSession, { user });
}

/** Removes every expired session; safe to run on a schedule. */
export async function deleteExpiredWebSessions(em: EntityManager, now = new Date()): Promise<number> {
  return em.nativeDelete(WebSession, { expiresAt: { $lte: now } });
}
