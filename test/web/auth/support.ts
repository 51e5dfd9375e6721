/** A small app with only the website's sign-in pieces on a fresh test database, and a client that keeps cookies like a browser. */
import { randomBytes } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import { MikroORM } from '@mikro-orm/postgresql';
import Fastify, { type FastifyInstance, type InjectOptions, type LightMyRequestResponse } from 'fastify';
import { installErrorHandling } from '../../../api/errors';
import { ormPlugin } from '../../../api/plugins/orm';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loginRateLimit, logIn, oidcRoutes, signUp, webAuthPlugin, type SignUpInput } from '../../../api/web/auth';
import type { User } from '../../../infra/db/entities/user.entity';
import type { OidcSettings } from '../../../infra/config';
import { ormConfig } from '../../../infra/db/orm.config';
import { createTestDatabase } from '../../support/test-db';
import { loadOpenidClientInJest } from './esm-loader';
import { clientOrigin } from '../../../api/client-address';

export interface AuthApp {
  app: FastifyInstance;
  orm: MikroORM;
  close(): Promise<void>;
}

export async function startAuthApp(
  options: {
    publicUrl?: string;
    oidc?: OidcSettings;
    loginLimit?: number;
    sweepExpiredEveryMs?: number;
    /** The app's clock (the system's by default). */
    clock?: () => Date;
  } = {},
): Promise<AuthApp> {
  const publicUrl = options.publicUrl ?? 'http://arena.test';
  const db = await createTestDatabase();
  const orm = await MikroORM.init(ormConfig(db.url));
  const app = Fastify({ logger: false });
  installErrorHandling(app);
  // Each limited route says its own refusal (api/plugins/rate-limits.ts).
  await app.register(rateLimit, { global: false });
  await app.register(ormPlugin, { orm });
  await app.register(webAuthPlugin, {
    publicUrl,
    secretKey: randomBytes(32),
    sessionDays: 30,
    sweepExpiredEveryMs: options.sweepExpiredEveryMs,
    clock: options.clock,
  });
  await app.register(oidcRoutes, {
    oidc: options.oidc,
    publicUrl,
    failureRedirect: '/login',
    loadClient: loadOpenidClientInJest,
    clock: options.clock,
  });

  // Stand-ins for the website's pages: a form, sign-up, log-in, logout and a private page.
  app.get('/form', async (request, reply) => ({ csrf: reply.csrfToken(), user: request.webUser?.username ?? null }));
  app.post('/form', { preHandler: app.csrfProtection }, async (request) => ({ accepted: request.body }));
  app.post('/signup', { preHandler: app.csrfProtection }, async (request, reply) => {
    const body = request.body as { email: string; password: string };
    const user = await signUp(request.em, { ...body, origin: clientOrigin(request) });
    if (user) await reply.signInWebUser(user);
    return reply.redirect('/', 303);
  });
  app.post(
    '/login',
    { config: loginRateLimit(options.loginLimit ?? 50), preHandler: app.csrfProtection },
    async (request, reply) => {
      await reply.signInWebUser(await logIn(request.em, request.body as { email: string; password: string }));
      return reply.redirect('/', 303);
    },
  );
  app.post('/logout', { preHandler: app.csrfProtection }, async (_request, reply) => {
    await reply.signOutWebUser();
    return reply.redirect('/', 303);
  });
  app.get('/private', { onRequest: app.requireWebUser }, async (request) => ({ username: request.webUser!.username }));
  await app.ready();
  return {
    app,
    orm,
    async close() {
      await app.close();
      await orm.close();
      await db.drop();
    },
  };
}

/** `app.inject` with a cookie jar: what a browser would send back, including deletions. */
export class Browser {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly ip = `10.77.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
  ) {}

  async request(options: InjectOptions): Promise<LightMyRequestResponse> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const res = await this.app.inject({
      remoteAddress: this.ip,
      ...options,
      headers: { ...(cookie ? { cookie } : {}), ...options.headers },
    });
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const gone = c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now()) || c.value === '';
      if (gone) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  /** A fresh CSRF token for this browser's current session (or none). */
  async csrf(): Promise<string> {
    return (await this.request({ method: 'GET', url: '/form' })).json().csrf;
  }

  /** Posts an HTML form, `_csrf` included unless given. */
  async submit(url: string, fields: Record<string, string>, withCsrf = true): Promise<LightMyRequestResponse> {
    const form = new URLSearchParams(fields);
    if (withCsrf && !form.has('_csrf')) form.set('_csrf', await this.csrf());
    return this.request({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: form.toString(),
    });
  }
}

/** A new password account; fails the test if the email already had one. */
export async function newAccount(em: EntityManager, input: SignUpInput): Promise<User> {
  const user = await signUp(em, input);
  if (!user) throw new Error(`${input.email} already has an account`);
  return user;
}

let emails = 0;
export const freshEmail = (label = 'person') => `${label}-${++emails}-${randomBytes(3).toString('hex')}@example.org`;
export const GOOD_PASSWORD = 'correct horse battery';
