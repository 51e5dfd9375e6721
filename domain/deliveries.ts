/** Delivery vocabulary shared by the API, the workflows and the activities (pure: no I/O). */
import type { AgentMode } from './agent-state';

export const DELIVERY_KINDS = ['main', 'gym', 'sandbox'] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** running, passed and failed are a coding session's: first step taken, hidden tests all passed or not. */
export type DeliveryStatus =
  'pending' | 'answered' | 'error' | 'timeout' | 'cancelled' | 'running' | 'passed' | 'failed';

export const DELIVERY_STATUSES = [
  'pending',
  'answered',
  'error',
  'timeout',
  'cancelled',
  'running',
  'passed',
  'failed',
] as const satisfies readonly DeliveryStatus[];
export type PushState = 'sending';
export type WorkItemState = 'queued' | 'leased' | 'completed' | 'expired';

/**
 * A delivery as its row was written, before anything was sent: what the repositories return from
 * an insert and what a delivery's workflow input is made of (`deliveryInputOf`).
 */
export interface WrittenDelivery {
  id: number;
  agent_id: number;
  kind: DeliveryKind;
  mode: AgentMode;
  category: string;
  deadline_seconds: number;
}

/** The category of a coding sandbox session (a `sandbox` session with a task and a workspace). */
export const CODING_CATEGORY = 'swe';

/** Whether a delivery is a coding session: kind `sandbox` covers owners' prompts and coding sessions alike. */
export function isCodingSession(delivery: { kind: DeliveryKind; category: string }): boolean {
  return delivery.kind === 'sandbox' && delivery.category === CODING_CATEGORY;
}

export const DEFAULT_DEADLINE_SECONDS: Record<DeliveryKind, number> = { main: 300, gym: 300, sandbox: 60 };
export const MAX_RESPONSE_CHARS = 100_000;

/** Public id of a session and of its pull work item: `<kind>-<n>`. */
export function deliveryPublicId(kind: DeliveryKind, id: number): string {
  return `${kind}-${id}`;
}

export function parseDeliveryPublicId(raw: string): { kind: DeliveryKind; id: number } | null {
  const match = /^(main|gym|sandbox)-([1-9][0-9]{0,9})$/.exec(raw);
  if (!match) return null;
  const id = Number(match[2]);
  return id <= 2_147_483_647 ? { kind: match[1] as DeliveryKind, id } : null;
}

/** What a blank answer (empty, or white space only) is recorded as: it answers nothing, in push and pull alike. */
export const EMPTY_RESPONSE = 'empty response';

export function isBlankAnswer(response: string): boolean {
  return response.trim() === '';
}

export function deadlineExceededMessage(seconds: number): string {
  return `deadline exceeded (${seconds} s)`;
}

/** A missed deadline is an error on main and gym deliveries and its own status on sandbox tasks. */
export function statusForMissedDeadline(kind: DeliveryKind): DeliveryStatus {
  return kind === 'sandbox' ? 'timeout' : 'error';
}
