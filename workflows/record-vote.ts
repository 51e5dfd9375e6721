/** recordVote (`vote-<battle id>`): a judge's vote and its rating change; the id lets a battle be voted once. */
import { deprecatePatch } from '@temporalio/workflow';
import { arenaLocalActivities } from './arena-activities';
import type { RecordedVote, VoteInput } from './contracts';

/**
 * The judge waits for the vote, and applying it is one idempotent transaction (a second run returns
 * what the first stored), so it runs as a local activity. Retired (docs/decisions.md, "Workflow
 * versions"): no vote begun before it runs any more; the marker stays for those begun since.
 */
const VOTE_LOCAL_PATCH = 'vote-local-activity';

export async function recordVote(input: VoteInput): Promise<RecordedVote> {
  deprecatePatch(VOTE_LOCAL_PATCH);
  return arenaLocalActivities.applyVote(input);
}
