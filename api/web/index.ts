/** The website, served by the same Fastify app as the API: server-rendered pages, no scripts needed to read them. */
import { codingDepsOf } from '../../services/coding-sessions';
import accepts from '@fastify/accepts';
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import type { Config } from '../../infra/config';
import type { AgentLifecycleDeps } from '../../services/agent-lifecycle';
import type { WorkflowDeps } from '../../services/workflow-client';
import { errorAnswer } from '../errors';
import { accountPages } from './account-pages';
import { sandboxPages } from './sandbox-pages';
import { oidcRoutes, webAuthPlugin } from './auth';
import type { OpenidClientLoader } from './auth/oidc-client';
import { battlePages } from './battle-pages';
import { publicPages } from './public-pages';
import { leaderboardPages } from './leaderboard-pages';
import { signInPages } from './sign-in-pages';
import { sendErrorPage } from './site';
import { named } from '../plugins/plugin-name';

export interface WebsiteOptions {
  config: Config & { encryptionKey: Buffer };
  workflows: WorkflowDeps;
  /** What retesting an agent needs (its ping), as the API's agent routes have it. */
  lifecycle: AgentLifecycleDeps;
  /** How openid-client (ES modules only) is loaded; tests under jest pass their own. */
  loadOpenidClient?: OpenidClientLoader;
}

export const website: FastifyPluginAsync<WebsiteOptions> = async (
  app,
  { config, workflows, lifecycle, loadOpenidClient },
) => {
  // Pages are not part of the API description.
  app.addHook('onRoute', (route) => {
    route.schema = { ...route.schema, hide: true };
  });
  // People get a page, not JSON, for anything that goes wrong here (the sentence is the API's `detail`).
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const { status, detail, headers } = errorAnswer(err, request);
    reply.headers(headers);
    return sendErrorPage(request, reply, status, detail);
  });
  await app.register(accepts);
  // Cookies, form bodies, the session and CSRF stay inside the website: /api keeps JSON only.
  await app.register(webAuthPlugin, {
    publicUrl: config.publicUrl,
    secretKey: config.encryptionKey,
    sessionDays: config.sessionDays,
    clock: () => app.now(),
  });
  await app.register(named(oidcRoutes), {
    oidc: config.oidc,
    publicUrl: config.publicUrl,
    failureRedirect: '/login',
    loadClient: loadOpenidClient,
    clock: () => app.now(),
  });
  await app.register(named(leaderboardPages), {
    publicUrl: config.publicUrl,
    minVotes: config.arena.minVotes,
    refreshSeconds: config.arena.leaderboardIntervalSeconds,
  });
  await app.register(named(publicPages), { publicUrl: config.publicUrl });
  await app.register(named(signInPages), {
    publicUrl: config.publicUrl,
    loginRateLimit: config.loginRateLimit,
    registerRateLimit: config.registerRateLimit,
    oidc: Boolean(config.oidc),
    reservedUsernames: config.adminUsernames,
  });
  await app.register(named(battlePages), { workflows, arena: config.arena, limits: config.limits });
  await app.register(named(accountPages), {
    workflows,
    lifecycle,
    pingsPerMinute: config.limits.pingsPerMinute,
    baseUrl: config,
    oidc: Boolean(config.oidc),
    encryptionKey: config.encryptionKey,
    reservedUsernames: config.adminUsernames,
    sandboxPerMinute: config.limits.sandboxPerMinute,
  });
  await app.register(named(sandboxPages), {
    coding: codingDepsOf(workflows, config.sandbox),
    sandboxPerMinute: config.limits.sandboxPerMinute,
    benchmarksPerHour: config.limits.benchmarksPerHour,
  });
};
