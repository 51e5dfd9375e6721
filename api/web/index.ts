/** The website, served by the same Fastify app as the API: server-rendered pages, no scripts needed to read them. */
import accepts from '@fastify/accepts';
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../../infra/config';
import { oidcRoutes, webAuthPlugin } from './auth';
import { publicPages } from './public-pages';
import { signInPages } from './sign-in-pages';

export const website: FastifyPluginAsync<{ config: Config & { encryptionKey: Buffer } }> = async (app, { config }) => {
  // Pages are not part of the API description.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  await app.register(accepts);
  // Cookies, form bodies, the session and CSRF stay inside the website: /api keeps JSON only.
  await app.register(webAuthPlugin, { publicUrl: config.publicUrl, secretKey: config.encryptionKey, sessionDays: config.sessionDays });
  await app.register(oidcRoutes, { oidc: config.oidc, publicUrl: config.publicUrl, failureRedirect: '/login' });
  await app.register(publicPages, { publicUrl: config.publicUrl });
  await app.register(signInPages, { loginRateLimit: config.loginRateLimit, registerRateLimit: config.registerRateLimit, oidc: Boolean(config.oidc) });
};
