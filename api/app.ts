/** Builds the Fastify app from its dependencies; never listens (the server and the tests do). */
import { codingDepsOf } from '../services/coding-sessions';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AppDeps } from './deps';
import { ApiError, installErrorHandling } from './errors';
import { validatorCompiler } from './validation';
import { authPlugin } from './plugins/auth';
import { openapiPlugin } from './plugins/openapi';
import { metricsPlugin } from './plugins/metrics';
import { postgresBudgetStore } from './plugins/rate-limit-store';
import { routeAddressKey } from './plugins/rate-limits';
import { ormPlugin } from './plugins/orm';
import { requestHygienePlugin, requestIdFor, routerError } from './plugins/request-hygiene';
import { securityHeadersPlugin } from './plugins/security-headers';
import { STYLE as DOCS_STYLE } from './discovery/page';
import { apiCatalogLink, discoveryRoutes } from './discovery';
import { rebaseAnswers } from './request-base';
import { apiCatalogLinkHeader } from './discovery/documents';
import { trustProxyOption } from './client-address';
import { accountRoutes } from './routes/account';
import { keyRoutes } from './routes/keys';
import { agentRoutes, lifecycleDepsOf } from './routes/agents';
import { healthRoutes } from './routes/health';
import { registerRoutes } from './routes/register';
import { userRoutes } from './routes/users';
import { versionRoutes } from './routes/version';
import { workRoutes } from './routes/work';
import { codingRoutes } from './routes/coding';
import { mcpRoutes } from './routes/mcp';
import { taskRoutes } from './routes/tasks';
import { activityRoutes } from './routes/activity';
import { battleRoutes } from './routes/battles';
import { judgeRoutes } from './routes/judge';
import { ratingRoutes } from './routes/ratings';
import { adminRoutes } from './routes/admin';
import { website } from './web';
import type { WorkflowDeps } from '../services/workflow-client';
import { loggerOptions, resolveLogFormat, stdoutDestination } from '../infra/logging';
import { startupWarnings } from '../infra/config';
import { RUNNER_VERSION } from '../infra/runner-package';
import { runnerTarball } from '../domain/runner-download';
import { loadDownloads } from './discovery/downloads';
import { named } from './plugins/plugin-name';

declare module 'fastify' {
  interface FastifyInstance {
    /** Now, from the app's clock (`AppDeps.clock`). */
    now(): Date;
  }
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = Fastify({
    logger: {
      ...loggerOptions(config.logLevel, 'api'),
      stream: deps.logStream ?? stdoutDestination(resolveLogFormat(config.logFormat)),
    },
    genReqId: requestIdFor,
    requestIdHeader: false,
    frameworkErrors: routerError,
    trustProxy: trustProxyOption(config.trustProxy),
    bodyLimit: 1024 * 1024,
    // Long-polls can hold a request for up to 50 s; give them headroom.
    requestTimeout: 120_000,
    return503OnClosing: true,
  }).withTypeProvider<ZodTypeProvider>();
  app.decorate('now', deps.clock ?? (() => new Date()));
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandling(app);
  for (const warning of startupWarnings(config)) app.log.warn(warning);
  // First, so that even requests refused early carry the headers.
  await app.register(securityHeadersPlugin, {
    publicUrl: config.publicUrl,
    inlineStyles: [DOCS_STYLE],
    identityProvider: config.oidc?.issuer,
  });
  await app.register(requestHygienePlugin);
  // Before any route: it collects them all for /openapi.json.
  await app.register(openapiPlugin, { publicUrl: config.publicUrl });
  await app.register(apiCatalogLink, { publicUrl: config.publicUrl });

  // Budgets live in PostgreSQL, so every API process (and the website and the API alike) spends the same ones.
  await app.register(rateLimit, {
    global: false,
    store: postgresBudgetStore(deps.orm, app.log),
    keyGenerator: routeAddressKey,
    // Each budget says its own window (plugins/rate-limits.ts); this is for one that does not.
    errorResponseBuilder: (_request, context) =>
      new ApiError(context.statusCode, `rate limit exceeded: retry in ${context.after}`),
  });
  await app.register(ormPlugin, { orm: deps.orm });
  await app.register(metricsPlugin, { orm: deps.orm, host: config.host, token: config.metricsToken });
  await app.register(authPlugin, { publicUrl: config.publicUrl, accountOfKey: deps.accountOfKey });

  const workflows: WorkflowDeps = {
    client: deps.temporal,
    taskQueue: config.taskQueue,
    gymRetrySeconds: config.gymRetrySeconds,
    callTimeoutMs: deps.workflowCallTimeoutMs ?? 10_000,
    eagerStart: deps.eagerStart ?? false,
  };
  // Graceful shutdown: before the server stops accepting, waiting long-polls answer 204 so close() need not wait them out.
  const draining = new AbortController();
  app.addHook('preClose', async () => draining.abort());
  // Requests that finish during the close end their connection too, so no client keeps a socket to a stopped server.
  app.addHook('onSend', async (_request, reply) => {
    if (draining.signal.aborted) reply.header('Connection', 'close');
  });

  const catalogLink = apiCatalogLinkHeader(config.publicUrl);
  await app.register(named(healthRoutes), { orm: deps.orm, temporal: deps.temporal.connection });
  const downloads = loadDownloads(deps.downloadsDir);
  if (!downloads.has(runnerTarball(RUNNER_VERSION)))
    app.log.warn(`no ${runnerTarball(RUNNER_VERSION)} to serve under /downloads/: run \`npm run build\` first`);
  await app.register(named(discoveryRoutes), {
    publicUrl: config.publicUrl,
    publicUrlSet: config.publicUrlSet,
    downloads,
  });
  await app.register(
    named(async (api) => {
      await api.register(
        named(async (version) => {
          rebaseAnswers(version, config);
          await version.register(named(versionRoutes), { publicUrl: config.publicUrl, downloads });
        }, 'version'),
      );
      await api.register(named(registerRoutes), { registerRateLimit: config.registerRateLimit });
      await api.register(named(accountRoutes), {
        reservedUsernames: config.adminUsernames,
        publicUrl: config.publicUrl,
      });
      await api.register(named(keyRoutes));
      await api.register(named(userRoutes));
      await api.register(named(agentRoutes), { prefix: '/agents', deps, workflows });
      await api.register(named(workRoutes), {
        prefix: '/agents',
        workflows,
        notifier: deps.notifier,
        draining: draining.signal,
        pollsPerMinute: config.limits.workPollsPerMinute,
        pollsPerAgent: config.limits.pollsPerAgent,
        maxOpenPolls: config.limits.maxOpenPolls,
        publicUrl: config.publicUrl,
        publicUrlSet: config.publicUrlSet,
        encryptionKey: config.encryptionKey,
        setAnswerHeaders: (res) => {
          app.setSecurityHeaders(res);
          res.setHeader('link', catalogLink);
        },
      });
      await api.register(named(codingRoutes), { prefix: '/agents', coding: codingDepsOf(workflows, config.sandbox) });
      await api.register(named(activityRoutes), { prefix: '/agents' });
      await api.register(named(judgeRoutes), {
        prefix: '/judge',
        workflows,
        arena: config.arena,
        votesPerMinute: config.limits.votesPerMinute,
      });
      await api.register(named(battleRoutes), {
        prefix: '/battles',
        workflows,
        arena: config.arena,
        battlesPerMinute: config.limits.battlesPerMinute,
      });
      await api.register(named(ratingRoutes));
      await api.register(named(taskRoutes));
      await api.register(named(adminRoutes), {
        prefix: '/admin',
        workflows,
        adminUsernames: config.adminUsernames,
        namespace: config.temporalNamespace,
        taskQueue: config.taskQueue,
        temporalUiUrl: config.temporalUiUrl,
      });
    }, 'api'),
    { prefix: '/api' },
  );
  // Beside the API rather than under it: the `mcp_url` a coding session's prompt carries.
  await app.register(named(mcpRoutes), {
    coding: codingDepsOf(workflows, config.sandbox),
    progressIntervalMs: deps.mcpProgressIntervalMs,
    keepAliveMs: deps.mcpKeepAliveMs,
  });
  await app.register(named(website), {
    config,
    workflows,
    lifecycle: lifecycleDepsOf(deps, workflows),
    loadOpenidClient: deps.loadOpenidClient,
  });
  return app;
}
