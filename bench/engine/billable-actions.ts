/**
 * What one workflow execution costs the engine, read from its history: its events, and its
 * billable actions as Temporal Cloud counts them from a history (the estimate its UI shows beside
 * each event). Counted here:
 *
 * - the workflow started (by a client, a child start or continue-as-new);
 * - each activity scheduled, and each retry of it (an attempt after the first);
 * - local activities: one for all those recorded in one workflow task;
 * - each timer started, signal received, update accepted, search-attribute upsert, child workflow
 *   and external signal or cancel requested.
 *
 * Not counted: workflow tasks, completions, patch markers (`patched()`) and the `TemporalChangeVersion`
 * upsert the SDK makes with each (Temporal Cloud exempts it from action counting), and what a
 * history does not show (activity heartbeats, queries, rejected updates). Pure, so the unit tests
 * pin it down.
 */

/** The part of a history event the count reads (proto JSON or the client's decoded form). */
export interface HistoryEventLike {
  eventType?: string | number | null;
  markerRecordedEventAttributes?: { markerName?: string | null } | null;
  activityTaskStartedEventAttributes?: { attempt?: number | null } | null;
  upsertWorkflowSearchAttributesEventAttributes?: {
    searchAttributes?: { indexedFields?: Record<string, unknown> | null } | null;
  } | null;
}

export interface ExecutionCost {
  events: number;
  actions: number;
  /** Actions by what caused them. */
  byKind: Record<string, number>;
}

/** Event types (without the EVENT_TYPE_ prefix) that are one action each. */
const ONE_ACTION: Record<string, string> = {
  WORKFLOW_EXECUTION_STARTED: 'workflow started',
  ACTIVITY_TASK_SCHEDULED: 'activity',
  TIMER_STARTED: 'timer',
  WORKFLOW_EXECUTION_SIGNALED: 'signal',
  WORKFLOW_EXECUTION_UPDATE_ACCEPTED: 'update',
  UPSERT_WORKFLOW_SEARCH_ATTRIBUTES: 'search attributes',
  START_CHILD_WORKFLOW_EXECUTION_INITIATED: 'child workflow',
  SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED: 'external signal',
  REQUEST_CANCEL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED: 'external cancel',
};

const LOCAL_ACTIVITY_MARKER = 'core_local_activity';
/** The search attribute the SDK keeps a workflow's patches in; its upserts are not billed. */
const CHANGE_VERSION = 'TemporalChangeVersion';

/** An upsert of only the patches' attribute, which the SDK adds after each new `patched()` call. */
function isChangeVersionUpsert(event: HistoryEventLike): boolean {
  const keys = Object.keys(event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields ?? {});
  return keys.length > 0 && keys.every((key) => key === CHANGE_VERSION);
}

/** EVENT_TYPE_TIMER_STARTED, TIMER_STARTED or the enum's number, as a name without the prefix. */
function typeName(type: HistoryEventLike['eventType'], names: Record<number, string>): string {
  if (typeof type === 'number') return (names[type] ?? String(type)).replace(/^EVENT_TYPE_/, '');
  return String(type ?? '').replace(/^EVENT_TYPE_/, '');
}

export function executionCost(
  events: readonly HistoryEventLike[],
  enumNames: Record<number, string> = {},
): ExecutionCost {
  const byKind: Record<string, number> = {};
  const add = (kind: string, n = 1) => (byKind[kind] = (byKind[kind] ?? 0) + n);
  let localActivitiesInTask = false;
  for (const event of events) {
    const type = typeName(event.eventType, enumNames);
    if (type === 'WORKFLOW_TASK_COMPLETED') localActivitiesInTask = false;
    const kind = ONE_ACTION[type];
    if (kind && !(type === 'UPSERT_WORKFLOW_SEARCH_ATTRIBUTES' && isChangeVersionUpsert(event))) add(kind);
    if (type === 'ACTIVITY_TASK_STARTED') {
      const retries = (event.activityTaskStartedEventAttributes?.attempt ?? 1) - 1;
      if (retries > 0) add('activity retry', retries);
    }
    if (type === 'MARKER_RECORDED' && event.markerRecordedEventAttributes?.markerName === LOCAL_ACTIVITY_MARKER) {
      if (!localActivitiesInTask) add('local activities');
      localActivitiesInTask = true;
    }
  }
  return { events: events.length, actions: Object.values(byKind).reduce((a, b) => a + b, 0), byKind };
}
