/** Pull-mode work, authenticated by `X-Arena-Secret`: the long-poll for the next prompt, and posting its result. */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findPullAgent, type PullAgentRow } from '../../infra/db/repositories/agent.repository';
import { findSession, type SessionRow } from '../../infra/db/repositories/session-read.repository';
import { recordCodingSummary } from '../../infra/db/repositories/coding.repository';
import { tokenMatchesHash } from '../../domain/credentials';
import { CODING_CATEGORY, parseSessionPublicId } from '../../domain/sessions';
import { refusals } from '../../workflows/contracts';
import { submitPullResult, type WorkflowDeps } from '../../services/workflow-client';
import { notFound } from '../../domain/errors';
import { ApiError } from '../errors';
import { errors, idParam } from '../schemas/common';
import { workNextQuery, workParams, workPayload, workRecorded, workResult } from '../schemas/session';
import { LongPolls, type LongPollsOptions } from '../long-polls';

/** The agent a pull call names, once its secret checks out: the columns it needs, no entity. */
async function pullAgent(
  em: EntityManager,
  agentId: number,
  secret: string | string[] | undefined,
  { lookAtQueue = false } = {},
): Promise<PullAgentRow> {
  const agent = await findPullAgent(em, agentId, { lookAtQueue });
  if (!agent) throw notFound('agent');
  if (typeof secret !== 'string' || !tokenMatchesHash(secret, agent.secret_hash)) {
    throw new ApiError(403, 'invalid or missing X-Arena-Secret');
  }
  if (agent.mode !== 'pull') throw new ApiError(409, refusals.notPullMode);
  if (agent.deactivated) throw new ApiError(409, 'agent is deactivated');
  return agent;
}

function resultHash(body: { response?: string; error?: string }): string {
  return createHash('sha256')
    .update(JSON.stringify([body.response ?? null, body.error ?? null]))
    .digest('hex');
}

/** Why a result for an already settled item is refused, or null when it is the same result again. */
function settledConflict(row: SessionRow, hash: string): string | null {
  if (row.result_hash === hash) return null;
  if (row.result_hash) return refusals.differentResult;
  if (row.status === 'cancelled') return refusals.cancelled;
  return refusals.expired(row.deadline_seconds);
}

/** The long-polls' settings (LongPollsOptions, but the database, log and metrics, which come from the app), and: */
export interface WorkRoutesOptions extends Omit<LongPollsOptions, 'db' | 'log' | 'metrics'> {
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
  const longPolls = new LongPolls({ db, log: app.log, metrics: app, ...pollOptions });
  // Counted per agent, and only once the secret checked out, so nobody else can use up a runner's budget.
  const pollLimit = app.rateLimit({
    max: pollsPerMinute,
    timeWindow: '1 minute',
    keyGenerator: (request) => `work-next:${(request.params as { id: number }).id}`,
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
      // Subscribed before the first look at the queue, so work queued while it looks still wakes the poll.
      const poll = longPolls.subscribe(request.params.id);
      try {
        // The agent, and whether it has queued work, in one query: most long-polls find none.
        const agent = await pullAgent(db, request.params.id, request.headers['x-arena-secret'], { lookAtQueue: true });
        await pollLimit.call(app, request, reply);
        longPolls.hold(poll, request, reply, { queued: agent.queued === true, waitSeconds: request.query.wait });
        return reply;
      } catch (err) {
        poll.drop();
        throw err;
      }
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
      const agent = await pullAgent(db, request.params.id, request.headers['x-arena-secret']);
      const workId = request.params.work_id;
      const parsed = parseSessionPublicId(workId);
      const row = parsed ? await findSession(db, agent.id, parsed.id) : undefined;
      if (!parsed || !row || row.kind !== parsed.kind || row.mode !== 'pull') throw notFound('work item');
      const recorded = { work_id: workId, recorded: true as const };
      if (row.kind === 'sandbox' && row.category === CODING_CATEGORY) {
        // A coding session goes on until submit or its deadline: the runner's answer is its summary.
        if (row.work_state === 'queued')
          throw new ApiError(409, 'work item has not been handed out yet; fetch it with work/next first');
        await recordCodingSummary(db, row.id, request.body.response ?? request.body.error ?? '');
        return recorded;
      }
      const hash = resultHash(request.body);
      if (row.status === 'pending' && row.work_state !== 'leased') {
        throw new ApiError(409, 'work item has not been handed out yet; fetch it with work/next first');
      }
      if (row.status === 'pending') {
        const steer = await submitPullResult(workflows, row.id, {
          response: request.body.response ?? null,
          error: request.body.error ?? null,
          agentLatencyMs: request.body.latency_ms ?? null,
          resultHash: hash,
          receivedAt,
        });
        if (steer.kind === 'done') return recorded;
        if (steer.kind === 'refused') throw new ApiError(409, steer.reason);
      }
      // Settled already (or it settled while we asked): the same result again is fine, anything else is a conflict.
      const settled = row.status === 'pending' ? await findSession(db, agent.id, row.id) : row;
      const conflict = settledConflict(settled!, hash);
      if (conflict) throw new ApiError(409, conflict);
      return recorded;
    },
  );
};
