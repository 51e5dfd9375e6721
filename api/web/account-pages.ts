/**
 * `/account`: a signed-in person edits their profile, manages their API keys, password, sessions
 * and linked identity provider, and their own agents (new secret, deactivate, sandbox prompts;
 * coding sessions, benchmark runs and the page that follows a task are in sandbox-pages.ts).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { accountOwnerName, isAgentActive } from '../../domain/agent-state';
import { ratedAgentIds } from '../../infra/db/repositories/rating.repository';
import { notFound } from '../../domain/errors';
import { editAccount } from '../../services/account';
import { API_KEYS_PER_MINUTE, issueApiKey, listApiKeys, revokeApiKey } from '../../services/api-keys';
import { agentsOf, deactivateAgent, ownedAgent, regenerateSecret, startSandboxTask } from '../../services/agents';
import { retestAgent, setOwnerHandle, type AgentLifecycleDeps } from '../../services/agent-lifecycle';
import { BENCHMARK_TRIALS, benchmarkProgressOf, codingTaskChoices } from '../../services/coding-sessions';
import type { WorkflowDeps } from '../../services/workflow-client';
import { expectedFailure } from '../errors';
import { perAccountPerMinute, pingSpender } from '../plugins/rate-limits';
import { ownerAgentCard } from './render/agent-presence';
import { requestBase, type BaseUrlSettings } from '../request-base';
import { accountPatch } from '../schemas/account';
import { pathId as canonicalId, optionalText } from '../schemas/common';
import { describeIssues } from '../validation';
import { sandboxCreate } from '../schemas/delivery';
import { deliveryJson } from '../json/agents';
import { changePassword, endAllWebSessions, hasPassword, identitiesOf, OIDC_FAILURES } from './auth';
import { mdEscape } from './render/markdown-pages';
import { sendErrorPage, sendPage } from './site';

// Canonical ids only, as on the API: /account/agents/0x1/... names no agent.
const pathId = z.object({ id: canonicalId });
const profileForm = z.object({
  username: z.string().default(''),
  display_name: z.string().default(''),
  bio: z.string().default(''),
});
const ownerHandleForm = z.object({ owner_handle: optionalText(100).default(null) });
const textField = z.object({ prompt: z.string().default(''), confirm: z.string().optional() });
const passwordForm = z.object({
  current_password: z.string().max(200).default(''),
  new_password: z.string().max(200).default(''),
});
const NOTICES: Record<string, string> = {
  saved: 'Profile saved.',
  deactivated: 'Agent deactivated. Deactivation is permanent.',
  revoked: 'API key revoked: it no longer works.',
  password: 'Password changed. Your other sessions have ended; this one goes on.',
  linked: 'Identity provider linked: you can sign in with it from now on.',
  'owner-handle': "Owner name saved: the agent's page and the leaderboard show it from now on.",
  'retest-passed': 'Retest passed: the agent is active and online.',
  'retest-failed': 'Retest failed: the agent stays inactive. Its card says why.',
  benchmark: 'Benchmark run started: one coding session per active task. Its progress shows below.',
};
/** Wrong current passwords are guesses: few a minute. */
const PASSWORD_CHANGES_PER_MINUTE = 5;

/** A time as the account page shows it: to the minute, in UTC. */
function shownTime(date: Date | null): string | null {
  return date ? `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC` : null;
}

/** Zod issues as one sentence, fields named as in the API's `detail`. */
function issuesDetail(error: z.ZodError): string {
  return describeIssues(error.issues, 'form');
}

export interface AccountPagesOptions {
  workflows: WorkflowDeps;
  /** Whether an identity provider is configured: the page then offers to link it. */
  oidc?: boolean;
  encryptionKey: Buffer;
  /** Operators' usernames: nobody else may take them. */
  reservedUsernames: readonly string[];
  sandboxPerMinute: number;
  /** What a retest needs (the agent's ping), as the API has it. */
  lifecycle: AgentLifecycleDeps;
  /** The account's ping budget per minute, shared with the API's retests and new agents. */
  pingsPerMinute: number;
  /** The arena's public URL (or the request's, when none is set): a pull agent's run command starts with it. */
  baseUrl: BaseUrlSettings;
}

export const accountPages: FastifyPluginAsync<AccountPagesOptions> = async (
  app,
  { workflows, oidc = false, encryptionKey, reservedUsernames, sandboxPerMinute, lifecycle, pingsPerMinute, baseUrl },
) => {
  app.addHook('onRequest', app.requireWebUser);
  const spendPing = pingSpender(app, pingsPerMinute);

  const accountPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { form?: z.infer<typeof profileForm>; error?: string; status?: number; notice?: string } = {},
  ) => {
    const user = request.webUser!;
    const [agents, keys, identities, passwordSet, codingTasks] = await Promise.all([
      agentsOf(request.em, user.id),
      listApiKeys(request.em, user.id),
      identitiesOf(request.em, user.id),
      hasPassword(request.em, user),
      codingTaskChoices(request.em),
    ]);
    const benchmarks = await Promise.all(agents.map((a) => benchmarkProgressOf(request.em, a.id)));
    const apiKeys = keys.map((k) => ({
      id: k.id,
      prefix: k.keyPrefix,
      created: shownTime(k.createdAt),
      lastUsed: shownTime(k.lastUsedAt),
    }));
    const linked = identities.map((i) => ({
      provider: URL.canParse(i.provider) ? new URL(i.provider).host : i.provider,
      since: shownTime(i.createdAt),
    }));
    const rated = await ratedAgentIds(
      request.em,
      agents.map((a) => a.id),
    );
    const base = requestBase(request, baseUrl);
    const now = Date.now();
    const rows = agents.map((a) => ownerAgentCard(a, { rated: rated.has(a.id), base, now }));
    const benchmarkOf = Object.fromEntries(agents.map((a, i) => [a.id, benchmarks[i] ?? null]));
    return sendPage(request, reply, {
      title: 'Your account',
      view: 'account',
      status: extra.status,
      data: {
        account: { id: user.id, email: user.email },
        accountName: accountOwnerName(user),
        form: extra.form ?? { username: user.username, display_name: user.displayName ?? '', bio: user.bio ?? '' },
        apiKeys,
        identities: linked,
        oidc,
        hasPassword: passwordSet,
        agents: rows,
        codingTasks,
        benchmarkTrials: BENCHMARK_TRIALS,
        // Each suite with its active tasks: the benchmark runs one suite, and says how many sessions before it starts.
        benchmarkSuites: [...new Set(codingTasks.map((t) => t.suite))].map((suite) => ({
          suite,
          tasks: codingTasks.filter((t) => t.suite === suite).length,
        })),
        benchmarkOf,
        error: extra.error ?? null,
        notice: extra.notice ?? null,
      },
      markdown: () =>
        `# ${mdEscape(user.username)}\n\n${rows.map((a) => `- ${mdEscape(a.name)} (${a.mode}, ${mdEscape(a.state)}, Elo ${a.elo})`).join('\n') || 'No agents yet.'}\n\nThe API offers the same: GET /api/account.\n`,
    });
  };

  /** An agent of the signed-in person; a missing one and someone else's both answer the 404 page. */
  const myAgent = (request: FastifyRequest) => {
    const params = pathId.safeParse(request.params);
    return params.success
      ? ownedAgent(request.em, params.data.id, request.webUser!.id)
      : Promise.reject(notFound('agent'));
  };

  const shownOnce = (
    request: FastifyRequest,
    reply: FastifyReply,
    page: { heading: string; explanation: string; value: string },
  ) =>
    sendPage(request, reply, {
      title: page.heading,
      view: 'shown-once',
      noStore: true,
      data: page,
      markdown: () => `# ${page.heading}\n\n${page.explanation}\n\n    ${page.value}\n\nIt is shown once.\n`,
    });

  app.get('/account', async (request, reply) => {
    const query = request.query as { done?: unknown; error?: unknown };
    const notice = NOTICES[String(query.done)];
    // Only sentences of the arena's own: a crafted link cannot put words on this page.
    const error = typeof query.error === 'string' && OIDC_FAILURES.has(query.error) ? query.error : undefined;
    return accountPage(request, reply, { notice, error });
  });

  app.post('/account/profile', { preHandler: app.csrfProtection }, async (request, reply) => {
    const form = profileForm.safeParse(request.body ?? {});
    if (!form.success) return accountPage(request, reply, { error: issuesDetail(form.error), status: 400 });
    const edit = accountPatch.safeParse(form.data);
    if (!edit.success)
      return accountPage(request, reply, { form: form.data, error: issuesDetail(edit.error), status: 400 });
    try {
      await editAccount(request.em, request.webUser!, edit.data, reservedUsernames);
    } catch (err) {
      const failure = expectedFailure(err);
      if (!failure) throw err;
      return accountPage(request, reply, {
        form: form.data,
        error: failure.detail.replace(/^body\./, ''),
        status: failure.status,
      });
    }
    return reply.redirect('/account?done=saved', 303);
  });

  app.post(
    '/account/api-key',
    { config: perAccountPerMinute('api-key', API_KEYS_PER_MINUTE), preHandler: app.csrfProtection },
    async (request, reply) => {
      const { apiKey, key } = await issueApiKey(request.em, request.webUser!);
      request.log.info({ userId: request.webUser!.id, keyId: key.id }, 'API key issued on the website');
      return shownOnce(request, reply, {
        heading: 'Your new API key',
        explanation:
          'Send it as Authorization: Bearer <key>. Your other keys keep working; revoke any you no longer use on your account page.',
        value: apiKey,
      });
    },
  );

  app.post('/account/api-keys/:id/revoke', { preHandler: app.csrfProtection }, async (request, reply) => {
    const params = pathId.safeParse(request.params);
    if (!params.success) return sendErrorPage(request, reply, 404, 'API key not found');
    await revokeApiKey(request.em, request.webUser!.id, params.data.id);
    request.log.info({ userId: request.webUser!.id, keyId: params.data.id }, 'API key revoked on the website');
    return reply.redirect('/account?done=revoked', 303);
  });

  app.post(
    '/account/password',
    { config: perAccountPerMinute('password-change', PASSWORD_CHANGES_PER_MINUTE), preHandler: app.csrfProtection },
    async (request, reply) => {
      const form = passwordForm.safeParse(request.body ?? {});
      if (!form.success) return accountPage(request, reply, { error: issuesDetail(form.error), status: 400 });
      const user = request.webUser!;
      try {
        await changePassword(request.em, user, {
          current: form.data.current_password,
          replacement: form.data.new_password,
        });
      } catch (err) {
        const failure = expectedFailure(err);
        if (!failure) throw err;
        return accountPage(request, reply, { error: failure.detail, status: failure.status });
      }
      // Whoever else knew the old password is signed out; this browser gets a fresh session.
      await endAllWebSessions(request.em, user);
      await reply.signInWebUser(user);
      request.log.info({ userId: user.id }, 'password changed; other sessions ended');
      return reply.redirect('/account?done=password', 303);
    },
  );

  app.post('/account/sign-out-everywhere', { preHandler: app.csrfProtection }, async (request, reply) => {
    const user = request.webUser!;
    const ended = await endAllWebSessions(request.em, user);
    await reply.signOutWebUser();
    request.log.info({ userId: user.id, sessions: ended }, 'signed out everywhere');
    return reply.redirect('/', 303);
  });

  app.post('/account/agents/:id/secret', { preHandler: app.csrfProtection }, async (request, reply) => {
    const agent = await myAgent(request);
    const secret = await regenerateSecret(request.em, agent, encryptionKey, request.log);
    return shownOnce(request, reply, {
      heading: `New secret for ${agent.name}`,
      explanation:
        'The old secret stopped working just now, for webhook signatures and for X-Arena-Secret alike. Give this one to your agent or runner.',
      value: secret,
    });
  });

  app.post('/account/agents/:id/owner-handle', { preHandler: app.csrfProtection }, async (request, reply) => {
    const agent = await myAgent(request);
    const form = ownerHandleForm.safeParse(request.body ?? {});
    if (!form.success)
      return accountPage(request, reply, { error: `${agent.name}: ${issuesDetail(form.error)}`, status: 400 });
    await setOwnerHandle(request.em, request.webUser!, agent, form.data.owner_handle);
    return reply.redirect(`/account?done=owner-handle#agent-${agent.id}`, 303);
  });

  app.post('/account/agents/:id/retest', { preHandler: app.csrfProtection }, async (request, reply) => {
    const agent = await myAgent(request);
    try {
      await retestAgent(request.em, lifecycle, agent, () => spendPing(request, reply), request.log);
    } catch (err) {
      const failure = expectedFailure(err);
      if (!failure) throw err;
      return accountPage(request, reply, { error: `${agent.name}: ${failure.detail}`, status: failure.status });
    }
    const outcome = isAgentActive(agent) ? 'retest-passed' : 'retest-failed';
    return reply.redirect(`/account?done=${outcome}#agent-${agent.id}`, 303);
  });

  app.post('/account/agents/:id/deactivate', { preHandler: app.csrfProtection }, async (request, reply) => {
    const agent = await myAgent(request);
    if (textField.safeParse(request.body ?? {}).data?.confirm !== 'yes') {
      return sendErrorPage(request, reply, 400, 'tick the box to confirm: deactivation is permanent');
    }
    await deactivateAgent(request.em, agent);
    return reply.redirect('/account?done=deactivated', 303);
  });

  app.post(
    '/account/agents/:id/sandbox',
    { config: perAccountPerMinute('sandbox', sandboxPerMinute), preHandler: app.csrfProtection },
    async (request, reply) => {
      const agent = await myAgent(request);
      const task = sandboxCreate.safeParse({ prompt: textField.safeParse(request.body ?? {}).data?.prompt ?? '' });
      if (!task.success)
        return accountPage(request, reply, { error: `${agent.name}: ${issuesDetail(task.error)}`, status: 400 });
      let session;
      try {
        session = await startSandboxTask(
          request.em,
          workflows,
          { agentId: agent.id, ownerId: request.webUser!.id },
          task.data,
          request.log,
        );
      } catch (err) {
        const failure = expectedFailure(err);
        if (!failure) throw err;
        return accountPage(request, reply, { error: `${agent.name}: ${failure.detail}`, status: failure.status });
      }
      return reply.redirect(`/account/agents/${agent.id}/sandbox/${deliveryJson(session).id}`, 303);
    },
  );
};
