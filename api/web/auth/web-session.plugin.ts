/** Who is signed in on the website: the session cookie resolved to `request.webUser`, and the hooks and helpers around it. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { User } from '../../../infra/db/entities/user.entity';
import type { WebSession } from '../../../infra/db/entities/web-session.entity';
import { ApiError } from '../../errors';
import { SESSION_COOKIE, webSessionCookieOptions } from './cookies';
import {
  DEFAULT_SESSION_DAYS,
  deleteExpiredWebSessions,
  endWebSession,
  findWebSession,
  startWebSession,
} from '../../../services/web-sessions';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in person on the website, or null. Never set by an API key. */
    webUser: User | null;
    webSession: WebSession | null;
  }
  interface FastifyInstance {
    /** onRequest/preHandler hook: HTML requests without a session go to `/login?next=…`, others get 401. */
    requireWebUser: (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined>;
  }
  interface FastifyReply {
    /** Starts a session for the account and sets its cookie (replacing any session this browser had). */
    signInWebUser: (user: User) => Promise<void>;
    /** Ends this browser's session, if any, and clears its cookie. */
    signOutWebUser: () => Promise<void>;
  }
}

export interface WebSessionOptions {
  /** `ARENA_PUBLIC_URL`: cookies are Secure when it is https. */
  publicUrl: string;
  sessionDays?: number;
  /** How often expired sessions are deleted; hourly unless a test wants it sooner. */
  sweepExpiredEveryMs?: number;
  /** Now: when a session starts, when it is seen and when it has expired. */
  clock?: () => Date;
}

const HOUR_MS = 60 * 60 * 1000;

/**
 * Where `?next=` may send someone after logging in: a path on this site, or `/`. It is resolved
 * the way a browser would resolve it (tabs and newlines dropped, `\` read as `/`), against the
 * public URL, and only a result on the same origin is kept, as a path, so no spelling of another
 * site gets through.
 */
export function safeNextPath(next: unknown, publicUrl: string): string {
  if (typeof next !== 'string' || next === '') return '/';
  let target: URL;
  try {
    target = new URL(next, publicUrl);
  } catch {
    return '/';
  }
  const path = `${target.pathname}${target.search}${target.hash}`;
  // `/.//host` resolves to the path `//host`, which a browser would read as another site.
  return target.origin === new URL(publicUrl).origin && !path.startsWith('//') ? path : '/';
}

function wantsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

export const webSessionPlugin = fp<WebSessionOptions>(
  async (
    app: FastifyInstance,
    { publicUrl, sessionDays = DEFAULT_SESSION_DAYS, sweepExpiredEveryMs = HOUR_MS, clock = () => new Date() },
  ) => {
    const cookieOptions = webSessionCookieOptions(publicUrl, sessionDays);
    const { maxAge: _maxAge, ...clearOptions } = cookieOptions;

    // Expired rows are never found, but they would pile up: every API process deletes them now
    // and then. The delete is one indexed statement that changes nothing the second time, so
    // several processes doing it is harmless; the timer never keeps a closing process alive.
    let sweeping = false;
    const sweep = async () => {
      if (sweeping) return;
      sweeping = true;
      try {
        const deleted = await deleteExpiredWebSessions(app.orm.em.fork(), clock());
        if (deleted > 0) app.log.info({ deleted }, 'expired website sessions deleted');
      } catch (err) {
        app.log.warn({ err }, 'could not delete expired website sessions; trying again later');
      } finally {
        sweeping = false;
      }
    };
    let sweeper: NodeJS.Timeout | undefined;
    app.addHook('onReady', async () => {
      sweeper = setInterval(() => void sweep(), sweepExpiredEveryMs).unref();
    });
    app.addHook('onClose', async () => clearInterval(sweeper));

    app.decorateRequest('webUser', null);
    app.decorateRequest('webSession', null);

    app.addHook('onRequest', async (request, reply) => {
      const token = request.cookies[SESSION_COOKIE];
      if (!token) return;
      const session = await findWebSession(request.em, token, clock());
      if (!session) {
        // Ended, expired or forged: drop it so the browser stops sending it.
        reply.clearCookie(SESSION_COOKIE, clearOptions);
        return;
      }
      request.webSession = session;
      request.webUser = session.user.getEntity();
    });

    app.decorate('requireWebUser', async (request: FastifyRequest, reply: FastifyReply) => {
      if (request.webUser) return undefined;
      if (!wantsHtml(request)) throw new ApiError(401, 'sign in on the website first');
      const back =
        request.method === 'GET' || request.method === 'HEAD' ? `?next=${encodeURIComponent(request.url)}` : '';
      return reply.redirect(`/login${back}`, 303);
    });

    app.decorateReply('signInWebUser', async function signInWebUser(this: FastifyReply, user: User) {
      const request = this.request;
      // A fresh token at every sign-in: a token planted before it (session fixation) never becomes a session.
      const previous = request.cookies[SESSION_COOKIE];
      if (previous) await endWebSession(request.em, previous);
      const { token, session } = await startWebSession(request.em, user, { days: sessionDays, now: clock() });
      request.webSession = session;
      request.webUser = user;
      this.setCookie(SESSION_COOKIE, token, cookieOptions);
    });

    app.decorateReply('signOutWebUser', async function signOutWebUser(this: FastifyReply) {
      const request = this.request;
      const token = request.cookies[SESSION_COOKIE];
      if (token) await endWebSession(request.em, token);
      request.webSession = null;
      request.webUser = null;
      this.clearCookie(SESSION_COOKIE, clearOptions);
    });
  },
  { name: 'web-session', dependencies: ['orm', '@fastify/cookie'] },
);
