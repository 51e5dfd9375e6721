/**
 * Finding deliveries through Temporal visibility, by the search attributes every delivery carries:
 * what `arena deliveries`, bulk redelivery and `GET /api/admin/deliveries` list.
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { z } from 'zod';
import { DELIVERY_KINDS, deliveryPublicId, type DeliveryKind } from '../domain/deliveries';
import { ArenaAgentId, ArenaKind, ArenaMode, ArenaOutcome } from '../workflows/contracts';

/** Recorded statuses, plus `failed` for error or timeout. */
export const OUTCOME_FILTERS = ['answered', 'error', 'timeout', 'cancelled', 'failed', 'pending'] as const;

/** `90s`, `15m`, `1h`, `7d`: also the filter's pattern, so the API document shows it. */
const DURATION = /^([0-9]{1,6}) *(s|m|h|d)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `90s`, `15m`, `1h`, `7d` as milliseconds. */
export function parseDuration(raw: string): number | null {
  const match = DURATION.exec(raw.trim());
  return match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : null;
}

export const deliveryFilter = z.object({
  agent: z.coerce.number().int().positive().max(2147483647).optional(),
  kind: z.enum(DELIVERY_KINDS).optional(),
  outcome: z.enum(OUTCOME_FILTERS).optional(),
  since: z.string().regex(DURATION, 'must be a duration such as 90s, 15m, 1h or 7d').optional(),
  limit: z.coerce.number().int().min(1).max(10_000).default(100),
});
export type DeliveryFilter = z.output<typeof deliveryFilter>;

/**
 * The visibility query for a filter, on this arena's task queue only (another arena may share the
 * namespace); every value is validated first (the queue by the configuration), so nothing is
 * spliced in raw.
 */
export function deliveryQuery(filter: Omit<DeliveryFilter, 'limit'>, taskQueue: string, now = Date.now()): string {
  const parts = [`WorkflowType = 'deliverPrompt'`, `TaskQueue = '${taskQueue}'`];
  if (filter.agent !== undefined) parts.push(`${ArenaAgentId.name} = ${filter.agent}`);
  if (filter.kind) parts.push(`${ArenaKind.name} = '${filter.kind}'`);
  if (filter.outcome === 'failed') parts.push(`${ArenaOutcome.name} IN ('error', 'timeout')`);
  else if (filter.outcome === 'pending') parts.push(`ExecutionStatus = 'Running'`);
  else if (filter.outcome) parts.push(`${ArenaOutcome.name} = '${filter.outcome}'`);
  if (filter.since) parts.push(`StartTime >= '${new Date(now - parseDuration(filter.since)!).toISOString()}'`);
  return parts.join(' AND ');
}

export interface DeliveryListing {
  workflow_id: string;
  run_id: string;
  /** `<kind>-<n>`, as in the feed. */
  session_id: string;
  agent_id: number | null;
  kind: DeliveryKind | null;
  mode: string | null;
  /** The recorded status; null while the delivery runs. */
  outcome: string | null;
  /** Temporal's execution status: Running, Completed, Failed, Terminated… */
  status: string;
  started_at: string;
  closed_at: string | null;
  /** The execution in the Temporal Web UI, when its address is known. */
  ui_url: string | null;
}

export function temporalUiLink(
  uiUrl: string | undefined,
  namespace: string,
  workflowId: string,
  runId: string,
): string | null {
  return uiUrl
    ? `${uiUrl}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}/${encodeURIComponent(runId)}/history`
    : null;
}

function listing(info: WorkflowExecutionInfo, namespace: string, uiUrl: string | undefined): DeliveryListing {
  const attributes = info.typedSearchAttributes;
  const kind = (attributes.get(ArenaKind) as DeliveryKind | undefined) ?? null;
  const sessionNumber = Number(info.workflowId.replace(/^delivery-/, ''));
  return {
    workflow_id: info.workflowId,
    run_id: info.runId,
    session_id: kind ? deliveryPublicId(kind, sessionNumber) : info.workflowId,
    agent_id: attributes.get(ArenaAgentId) ?? null,
    kind,
    mode: attributes.get(ArenaMode) ?? null,
    outcome: attributes.get(ArenaOutcome) ?? null,
    status: info.status.name,
    started_at: info.startTime.toISOString(),
    closed_at: info.closeTime?.toISOString() ?? null,
    ui_url: temporalUiLink(uiUrl, namespace, info.workflowId, info.runId),
  };
}

/** Where an arena's deliveries are: its namespace and task queue, and the Web UI that shows them. */
export interface DeliverySearch {
  namespace: string;
  taskQueue: string;
  uiUrl?: string;
}

/** Deliveries matching the filter, newest first, at most `limit`. */
export async function listDeliveries(
  client: Client,
  options: DeliverySearch,
  filter: DeliveryFilter,
): Promise<DeliveryListing[]> {
  const found: DeliveryListing[] = [];
  for await (const info of client.workflow.list({
    query: deliveryQuery(filter, options.taskQueue),
    pageSize: Math.min(filter.limit, 1000),
  })) {
    found.push(listing(info, options.namespace, options.uiUrl));
    if (found.length >= filter.limit) break;
  }
  return found;
}
