/** applyRetention, run by the retention schedule: what grows with use and is not the product is cut back to what is kept. */
import { arenaActivities } from './arena-activities';
import type { RetentionSettings } from './contracts';

/** Rows one activity handles: one transaction, well under the activity's timeout. */
const BATCH = 500;
/** Batches a run handles at most; what is left waits for the next run (the schedule's next hour). */
const MAX_BATCHES = 200;

export async function applyRetention(settings: RetentionSettings): Promise<string> {
  let trimmed = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const done = await arenaActivities.trimCodingSteps({ days: settings.codingStepDays, batch: BATCH });
    trimmed += done;
    if (done < BATCH) break;
  }
  return `${trimmed} coding steps cut to their transcript`;
}
