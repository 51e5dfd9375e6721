/**
 * The account page's sandbox pages: the page that follows a sandbox task or coding session, and the
 * forms that start a coding session on a task or a benchmark run for one of the person's agents.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../domain/errors';
import { ownedAgent, sandboxTaskOf } from '../../services/agents';
import {
  BENCHMARK_TRIALS,
  noActiveTask,
  startBenchmark,
  startCodingTask,
  type CodingDeps,
} from '../../services/coding-sessions';
import { activeTasks } from '../../infra/db/repositories/coding-task.repository';
import { ARENA_SUITE, CODING_SUITES } from '../../domain/sandbox/suites';
import { expectedFailure } from '../errors';
import { deliveryJson } from '../json/agents';
import { accountBudget, perAccountPerMinute } from '../plugins/rate-limits';
import { pathId as canonicalId } from '../schemas/common';
import { renderMarkdown } from './render/markdown';
import { waitingFor } from './render/agent-presence';
import { mdEscape, mdFenced } from './render/markdown-pages';
import { sendErrorPage, sendPage } from './site';

const pathId = z.object({ id: canonicalId });
const taskParams = z.object({ id: canonicalId, session_id: z.string().max(40) });
const taskForm = z.object({ task: z.string().trim().min(1).max(100).default('random') });
/** The benchmark's form: a suite, trials, and `confirm=yes` once the owner has seen what it starts. */
const benchmarkForm = z.object({
  suite: z.enum(CODING_SUITES, 'choose a suite: arena or humaneval').default(ARENA_SUITE),
  trials: z.coerce
    .number('trials must be a number')
    .int('trials must be a whole number')
    .min(BENCHMARK_TRIALS.min, `trials must be ${BENCHMARK_TRIALS.min} to ${BENCHMARK_TRIALS.max}`)
    .max(BENCHMARK_TRIALS.max, `trials must be ${BENCHMARK_TRIALS.min} to ${BENCHMARK_TRIALS.max}`)
    .default(BENCHMARK_TRIALS.default),
  confirm: z.literal('yes').optional().catch(undefined),
});

export interface SandboxPagesOptions {
  coding: CodingDeps;
  sandboxPerMinute: number;
  benchmarksPerHour: number;
}

export const sandboxPages: FastifyPluginAsync<SandboxPagesOptions> = async (
  app,
  { coding, sandboxPerMinute, benchmarksPerHour },
) => {
  app.addHook('onRequest', app.requireWebUser);
  // The API's budget too (the same key): runs started per account per hour.
  const benchmarkBudget = app.rateLimit(accountBudget('benchmark', benchmarksPerHour, '1 hour'));

  const myAgent = (request: FastifyRequest) => {
    const params = pathId.safeParse(request.params);
    return params.success
      ? ownedAgent(request.em, params.data.id, request.webUser!.id)
      : Promise.reject(notFound('agent'));
  };

  app.post(
    '/account/agents/:id/coding',
    { config: perAccountPerMinute('sandbox', sandboxPerMinute), preHandler: app.csrfProtection },
    async (request, reply) => {
      const agent = await myAgent(request);
      const form = taskForm.safeParse(request.body ?? {});
      if (!form.success) return sendErrorPage(request, reply, 400, 'choose a task');
      try {
        const owned = { agentId: agent.id, ownerId: request.webUser!.id };
        const session = await startCodingTask(request.em, coding, owned, { task: form.data.task }, request.log);
        return reply.redirect(`/account/agents/${agent.id}/sandbox/${deliveryJson(session).id}`, 303);
      } catch (err) {
        const failure = expectedFailure(err);
        if (!failure) throw err;
        return sendErrorPage(request, reply, failure.status, `${agent.name}: ${failure.detail}`);
      }
    },
  );

  app.post('/account/agents/:id/benchmark', { preHandler: app.csrfProtection }, async (request, reply) => {
    const agent = await myAgent(request);
    const form = benchmarkForm.safeParse(request.body ?? {});
    if (!form.success) return sendErrorPage(request, reply, 400, `${agent.name}: ${form.error.issues[0]!.message}`);
    const { suite, trials, confirm } = form.data;
    if (confirm !== 'yes') {
      // Nothing starts before the owner has seen how many sessions it is.
      const tasks = (await activeTasks(request.em, suite)).length;
      if (tasks === 0) return sendErrorPage(request, reply, 409, `${agent.name}: ${noActiveTask(suite)}`);
      return sendPage(request, reply, {
        title: `Run the benchmark for ${agent.name}?`,
        view: 'benchmark-confirm',
        data: { agent: { id: agent.id, name: agent.name }, suite, trials, tasks, sessions: tasks * trials },
        markdown: () =>
          `# Run the benchmark for ${mdEscape(agent.name)}?\n\n${tasks * trials} coding sessions: every active task of the ${suite} suite (${tasks}) ${trials} times, a few at a time. Confirm on the page, or POST /api/agents/${agent.id}/benchmark.\n`,
      });
    }
    // Only a confirmed run spends the hour's budget: asking shows a count and starts nothing.
    await benchmarkBudget.call(app, request, reply);
    try {
      await startBenchmark(request.em, coding, agent, { suite, trials }, request.log);
      return reply.redirect(`/account?done=benchmark#agent-${agent.id}`, 303);
    } catch (err) {
      const failure = expectedFailure(err);
      if (!failure) throw err;
      return sendErrorPage(request, reply, failure.status, `${agent.name}: ${failure.detail}`);
    }
  });

  app.get('/account/agents/:id/sandbox/:session_id', async (request, reply) => {
    const params = taskParams.safeParse(request.params);
    const agent = await myAgent(request);
    const row = params.success ? await sandboxTaskOf(request.em, agent, params.data.session_id) : undefined;
    if (!row) return sendErrorPage(request, reply, 404, 'sandbox task not found');
    const session = deliveryJson(row, true);
    return sendPage(request, reply, {
      title: `Sandbox task ${session.id}`,
      view: 'sandbox-task',
      live: session.status === 'pending' || session.status === 'running',
      data: {
        agent: { id: agent.id, name: agent.name },
        session,
        waiting: session.status === 'pending' ? waitingFor(agent) : null,
        promptHtml: renderMarkdown(session.prompt),
        responseHtml: session.response === null ? null : renderMarkdown(session.response),
      },
      markdown: () =>
        `# Sandbox task ${session.id} (${session.status})\n\n**Prompt:**\n\n${mdFenced(session.prompt)}\n\n${
          session.response !== null
            ? `**Response:**\n\n${mdFenced(session.response)}\n`
            : session.error
              ? `**Error:** ${mdEscape(session.error)}\n`
              : ''
        }`,
    });
  });
};
