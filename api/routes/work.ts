/** Pull-mode work, authenticated by `X-Arena-Secret`: the long-poll for the next prompt, and posting its result. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { markAgentSeen } from '../../infra/db/repositories/agent.repository';
import { authenticatePullAgent, submitWorkResult } from '../../services/pull-work';
import type { WorkflowDeps } from '../../services/workflow-client';
import { errors, idParam } from '../schemas/common';
import { workNextQuery, workParams, workPayload, workRecorded, workResult } from '../schemas/delivery';
import { LongPolls, type LongPollsOptions } from '../long-polls';
import { budget } from '../plugins/rate-limits';

/** The long-polls' settings (LongPollsOptions, but what the app and this plugin give them), and: */
export interface WorkRoutesOptions extends Omit<
  LongPollsOptions,
  'db' | 'log' | 'metrics' | 'authenticate' | 'markSeen' | 'rateLimit'
> {
  workflows: WorkflowDeps;
  /** Authenticated work/next calls per agent per minute. */
  pollsPerMinute: number;
}

export const workRoutes: FastifyPluginAsyncZod<WorkRoutesOptions> = async (
  app,
  { workflows, pollsPerMinute, ...pollOptions },
) => {
  // Raw SQL only, so no request needs an identity map of its own: a waiting long-poll holds nothing but its socket.
  const db = app.orm.em;
  // Counted per agent, and only once the secret checked out, so nobody else can use up a runner's budget.
  const pollLimit = app.rateLimit(
    budget(pollsPerMinute, '1 minute', (request) => `work-next:${(request.params as { id: number }).id}`),
  );
  const longPolls = new LongPolls({
    db,
    log: app.log,
    metrics: app,
    authenticate: authenticatePullAgent,
    markSeen: markAgentSeen,
    rateLimit: pollLimit,
    ...pollOptions,
  });
  const security = [{ agentSecret: [] }];

  app.get(
    '/:id/work/next',
    {
      // Set as it answers, not when it arrives: a waiting poll's response holds each header it was
      // given (an array and strings apiece) for up to 50 s. A held poll sets them itself (LongPolls).
      helmet: false,
      onSend: (_request, reply, payload, done) => {
        app.setSecurityHeaders(reply.raw);
        done(null, payload);
      },
      schema: {
        summary: 'Long-poll for the next prompt (wait up to 50 s); 204 when there is none',
        tags: ['pull'],
        security,
        params: idParam,
        querystring: workNextQuery,
        response: { 200: workPayload, 204: z.null().describe('no work available'), ...errors(400, 403, 404, 409, 429) },
      },
    },
    async (request, reply) => {
      await longPolls.hold(request, reply, {
        agentId: request.params.id,
        secret: request.headers['x-arena-secret'],
        waitSeconds: request.query.wait,
      });
      return reply;
    },
  );

  app.post(
    '/:id/work/:work_id/result',
    {
      schema: {
        summary: 'Post the result of a work item: exactly one of response or error',
        tags: ['pull'],
        security,
        params: workParams,
        body: workResult,
        response: { 200: workRecorded, ...errors(400, 403, 404, 409) },
      },
    },
    async (request) => {
      const receivedAt = Date.now();
      const caller = { agentId: request.params.id, secret: request.headers['x-arena-secret'] };
      return submitWorkResult(db, workflows, caller, request.params.work_id, request.body, receivedAt);
    },
  );
};
