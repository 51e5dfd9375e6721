/** recordVote (`vote-<battle id>`): a judge's vote and its rating change; the id lets a battle be voted once. */
import { patched } from '@temporalio/workflow';
import { arenaActivities, arenaLocalActivities } from './arena-activities';
import type { RecordedVote, VoteInput } from './contracts';

/**
 * The judge waits for the vote, and applying it is one idempotent transaction (a second run returns
 * what the first stored), so it runs as a local activity. Votes begun before keep their activity.
 */
const VOTE_LOCAL_PATCH = 'vote-local-activity';

export async function recordVote(input: VoteInput): Promise<RecordedVote> {
  const activities = patched(VOTE_LOCAL_PATCH) ? arenaLocalActivities : arenaActivities;
  return activities.applyVote(input);
}
