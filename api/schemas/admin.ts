/** Operators' endpoints: finding deliveries and sending them again. */
import { z } from 'zod';
import { deliveryFilter } from '../../services/delivery-search';

export { deliveryFilter };

export const deliveryListing = z.object({
  workflow_id: z.string(),
  run_id: z.string(),
  session_id: z.string().describe('`<kind>-<n>`, as in the feed'),
  agent_id: z.number().int().nullable(),
  kind: z.string().nullable(),
  mode: z.string().nullable(),
  outcome: z.string().nullable().describe('the recorded status; null while running'),
  status: z.string().describe("Temporal's execution status"),
  started_at: z.string(),
  closed_at: z.string().nullable(),
  ui_url: z.string().nullable().describe('the execution in the Temporal Web UI'),
});

export const redelivery = z.object({
  session_id: z.string().describe('the new delivery'),
  redelivery_of: z.string().describe('the original delivery'),
  workflow_id: z.string(),
});

export const bulkRedelivery = z.object({
  redelivered: z.array(redelivery),
  skipped: z.array(z.object({ session_id: z.string(), reason: z.string() })),
});

export const redeliverParams = z.object({ session_id: z.string().max(40) });

/** The filters of a bulk redelivery; failed deliveries unless another outcome is named. */
export const bulkRedeliveryBody = deliveryFilter.omit({ limit: true }).extend({
  // Running deliveries cannot be redelivered: the document says so, rather than only the handler.
  outcome: deliveryFilter.shape.outcome.unwrap().exclude(['pending']).optional(),
  limit: z.number().int().min(1).max(10_000).default(1000),
});
