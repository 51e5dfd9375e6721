/** /api/admin: operators (accounts named in ARENA_ADMIN_USERNAMES) list deliveries and redeliver them. 403 for everyone else. */
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listDeliveries } from '../../services/delivery-search';
import { redeliver, redeliverMatching } from '../../services/redeliveries';
import type { WorkflowDeps } from '../../services/workflow-client';
import { ApiError } from '../errors';
import {
  bulkRedelivery,
  bulkRedeliveryBody,
  deliveryFilter,
  deliveryListing,
  redeliverParams,
  redelivery,
} from '../schemas/admin';
import { errors } from '../schemas/common';

export interface AdminOptions {
  workflows: WorkflowDeps;
  adminUsernames: string[];
  namespace: string;
  taskQueue: string;
  temporalUiUrl?: string;
}

export const adminRoutes: FastifyPluginAsyncZod<AdminOptions> = async (
  app,
  { workflows, adminUsernames, namespace, taskQueue, temporalUiUrl },
) => {
  app.addHook('onRequest', app.requireAccount);
  app.addHook('onRequest', async (request) => {
    if (!adminUsernames.includes(request.account.username))
      throw new ApiError(403, 'operators only: this account is not in ARENA_ADMIN_USERNAMES');
  });
  const security = [{ bearerAuth: [] }];
  const search = { namespace, taskQueue, uiUrl: temporalUiUrl };

  app.get(
    '/deliveries',
    {
      schema: {
        summary:
          'Deliveries found through Temporal visibility, newest first, with their Temporal UI links (operators only)',
        tags: ['operations'],
        security,
        querystring: deliveryFilter,
        response: { 200: z.array(deliveryListing), ...errors(400, 401, 403, 503) },
      },
    },
    async (request) => listDeliveries(workflows.client, search, request.query),
  );

  app.post(
    '/deliveries/:session_id/redeliver',
    {
      schema: {
        summary: 'Send a delivery again, as a new delivery linked to the original (operators only)',
        tags: ['operations'],
        security,
        params: redeliverParams,
        response: { 202: redelivery, ...errors(401, 403, 404, 409, 503) },
      },
    },
    async (request, reply) => reply.code(202).send(await redeliver(request.em, workflows, request.params.session_id)),
  );

  app.post(
    '/redeliveries',
    {
      schema: {
        summary:
          'Redeliver every delivery the filters find (failed ones unless another outcome is named); each at most once (operators only)',
        tags: ['operations'],
        security,
        body: bulkRedeliveryBody,
        response: { 200: bulkRedelivery, ...errors(400, 401, 403, 503) },
      },
    },
    async (request) => redeliverMatching(request.em, workflows, search, request.body),
  );
};
