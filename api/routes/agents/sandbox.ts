/** Sandbox tasks: an owner sends a prompt of their own to their agent, end to end, never judged. */
import { CODING_SUITES } from '../../../domain/sandbox/suites';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { cancelSandboxTask, ownedAgent, startSandboxTask } from '../../../services/agents';
import { startBenchmark, startCodingTask, type CodingDeps } from '../../../services/coding-sessions';
import type { WorkflowDeps } from '../../../services/workflow-client';
import { errors, idParam } from '../../schemas/common';
import { perAccount, perAccountPerMinute } from '../../plugins/rate-limits';
import { activityDelivery, sandboxParams } from '../../schemas/delivery';
import { benchmarkStart, sandboxStart } from '../../schemas/coding';
import { deliveryJson } from '../../json/agents';

export const sandboxRoutes: FastifyPluginAsyncZod<{
  workflows: WorkflowDeps;
  coding: CodingDeps;
  sandboxPerMinute: number;
  benchmarksPerHour: number;
}> = async (app, { workflows, coding, sandboxPerMinute, benchmarksPerHour }) => {
  const security = [{ bearerAuth: [] }];

  app.post(
    '/:id/sandbox',
    {
      config: perAccountPerMinute('sandbox', sandboxPerMinute),
      schema: {
        summary:
          'Send your agent a prompt of your own, or a coding task it works in a sandbox; answers 202 with the pending session',
        tags: ['sandbox'],
        security,
        params: idParam,
        body: sandboxStart,
        response: { 202: activityDelivery, ...errors(400, 401, 404, 409, 429, 503) },
      },
    },
    async (request, reply) => {
      // The use case checks that the caller owns the agent (404 otherwise).
      const owned = { agentId: request.params.id, ownerId: request.account.id };
      const { prompt, task, category, deadline_seconds } = request.body;
      const row =
        task !== undefined
          ? await startCodingTask(request.em, coding, owned, { task, deadline_seconds }, request.log)
          : await startSandboxTask(
              request.em,
              workflows,
              owned,
              { prompt: prompt!, category: category ?? 'sandbox', deadline_seconds: deadline_seconds ?? 60 },
              request.log,
            );
      return reply.code(202).send(deliveryJson(row, true));
    },
  );

  app.post(
    '/:id/benchmark',
    {
      config: perAccount('benchmark', benchmarksPerHour, '1 hour'),
      schema: {
        summary:
          "Start a benchmark run: every active task of a suite (`arena`, the arena's own, or `humaneval`) `trials` times, its sessions opened as the account may hold them; one run at a time per agent",
        tags: ['sandbox'],
        security,
        params: idParam,
        body: benchmarkStart.optional(),
        response: {
          202: z.object({
            run_id: z.number().int(),
            suite: z.enum(CODING_SUITES),
            tasks: z.number().int().describe("the suite's active tasks when the run started"),
            trials: z.number().int().describe('sessions per task'),
            sessions: z
              .number()
              .int()
              .describe("sessions the run will open (tasks × trials), as the account's cap of live sessions lets it"),
          }),
          ...errors(400, 401, 404, 409, 429, 503),
        },
      },
    },
    async (request, reply) => {
      const agent = await ownedAgent(request.em, request.params.id, request.account.id);
      const run = await startBenchmark(request.em, coding, agent, request.body ?? {}, request.log);
      return reply.code(202).send(run);
    },
  );

  app.post(
    '/:id/sandbox/:session_id/cancel',
    {
      schema: {
        summary: 'Cancel a pending sandbox task',
        tags: ['sandbox'],
        security,
        params: sandboxParams,
        response: { 200: activityDelivery, ...errors(400, 401, 404, 409) },
      },
    },
    async (request) => {
      const agent = await ownedAgent(request.em, request.params.id, request.account.id);
      return deliveryJson(await cancelSandboxTask(request.em, workflows, agent, request.params.session_id), true);
    },
  );
};
