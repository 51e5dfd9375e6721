/** Billable actions read from real saved histories (test/histories), the way the bench reads them from its run. */
import fs from 'node:fs';
import path from 'node:path';
import { executionCost, type HistoryEventLike } from '../../../bench/engine/billable-actions';

const readEvents = (file: string): HistoryEventLike[] =>
  (JSON.parse(fs.readFileSync(file, 'utf8')) as { events: HistoryEventLike[] }).events;
const history = (name: string) => readEvents(path.resolve(__dirname, '..', '..', 'histories', `${name}.json`));
/** A push delivery of a retired version, kept as data for the counter only (it is no longer replayed). */
const retiredHistory = (name: string) =>
  readEvents(path.resolve(__dirname, '..', '..', 'fixtures', 'histories', `${name}.json`));

describe('executionCost', () => {
  it('counts a push delivery: start, its one activity, the outcome upsert; not the patch marker or its upsert', () => {
    expect(executionCost(history('push-answered'))).toEqual({
      events: 14,
      actions: 3,
      byKind: { 'workflow started': 1, activity: 1, 'search attributes': 1 },
    });
  });

  it('counts an older push delivery: a timer, local activities once per task, and each upsert but the patches', () => {
    // Three upserts in its history: two of TemporalChangeVersion (one per patch), exempt from billing.
    expect(executionCost(retiredHistory('push-answered.v3'))).toEqual({
      events: 19,
      actions: 5,
      byKind: { 'workflow started': 1, activity: 1, timer: 1, 'search attributes': 1, 'local activities': 1 },
    });
  });

  it('counts a pull delivery with its update, and two local activities in one task as one action', () => {
    expect(executionCost(history('pull-answered'))).toMatchObject({
      events: 17,
      byKind: { 'workflow started': 1, timer: 1, update: 1, 'search attributes': 1, 'local activities': 2 },
    });
    expect(executionCost(history('pull-expired')).byKind['local activities']).toBe(2);
  });

  it('counts each retry of an activity, and reads numeric event types through the enum names given', () => {
    const cost = executionCost(
      [{ eventType: 1 }, { eventType: 10 }, { eventType: 11, activityTaskStartedEventAttributes: { attempt: 3 } }],
      {
        1: 'EVENT_TYPE_WORKFLOW_EXECUTION_STARTED',
        10: 'EVENT_TYPE_ACTIVITY_TASK_SCHEDULED',
        11: 'EVENT_TYPE_ACTIVITY_TASK_STARTED',
      },
    );
    expect(cost).toEqual({
      events: 3,
      actions: 4,
      byKind: { 'workflow started': 1, activity: 1, 'activity retry': 2 },
    });
  });
});
