/** The account page's forms for coding: a coding session on a task for one of the person's agents, and a benchmark run. */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { notFound } from '../../domain/errors';
import { ownedAgent } from '../../services/agents';
import { startBenchmark, startCodingTask, type CodingDeps } from '../../services/coding-sessions';
import { expectedFailure } from '../errors';
import { sessionJson } from '../json/agents';
import { perAccount, perAccountPerMinute } from '../plugins/rate-limits';
import { pathId as canonicalId } from '../schemas/common';
import { sendErrorPage } from './site';

const pathId = z.object({ id: canonicalId });
const taskForm = z.object({ task: z.string().trim().min(1).max(100).default('random') });

export interface CodingFormsOptions {
  coding: CodingDeps;
  sandboxPerMinute: number;
  benchmarksPerHour: number;
}

export const codingForms: FastifyPluginAsync<CodingFormsOptions> = async (
  app,
  { coding, sandboxPerMinute, benchmarksPerHour },
) => {
  app.addHook('onRequest', app.requireWebUser);

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
        const session = await startCodingTask(request.em, coding, agent, { task: form.data.task }, request.log);
        return reply.redirect(`/account/agents/${agent.id}/sandbox/${sessionJson(session).id}`, 303);
      } catch (err) {
        const failure = expectedFailure(err);
        if (!failure) throw err;
        return sendErrorPage(request, reply, failure.status, `${agent.name}: ${failure.detail}`);
      }
    },
  );

  app.post(
    '/account/agents/:id/benchmark',
    { config: perAccount('benchmark', benchmarksPerHour, '1 hour'), preHandler: app.csrfProtection },
    async (request, reply) => {
      const agent = await myAgent(request);
      try {
        await startBenchmark(request.em, coding, agent, {}, request.log);
        return reply.redirect(`/account?done=benchmark#agent-${agent.id}`, 303);
      } catch (err) {
        const failure = expectedFailure(err);
        if (!failure) throw err;
        return sendErrorPage(request, reply, failure.status, `${agent.name}: ${failure.detail}`);
      }
    },
  );
};
