/** applyRetention, run by the retention schedule: what grows with use and is not the product is cut back to what is kept. */
import { patched } from '@temporalio/workflow';
import { arenaActivities } from './arena-activities';
import type { RetentionSettings } from './contracts';

/** Rows one activity handles: one transaction, well under the activity's timeout. */
const BATCH = 500;
/** Batches a run handles at most; what is left waits for the next run (the schedule's next hour). */
const MAX_BATCHES = 200;
/** Runs begun before settled work items had a retention cut coding steps only (the patch marker tells them apart). */
const WORK_ITEMS_PATCH = 'retention-work-items';

export async function applyRetention(settings: RetentionSettings): Promise<string> {
  let trimmed = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const done = await arenaActivities.trimCodingSteps({ days: settings.codingStepDays, batch: BATCH });
    trimmed += done;
    if (done < BATCH) break;
  }
  const steps = `${trimmed} coding steps cut to their transcript`;
  if (!patched(WORK_ITEMS_PATCH) || settings.workItemDays === undefined) return steps;
  let deleted = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const done = await arenaActivities.deleteSettledWork({ days: settings.workItemDays, batch: BATCH });
    deleted += done;
    if (done < BATCH) break;
  }
  return `${steps}; ${deleted} settled work items deleted`;
}
