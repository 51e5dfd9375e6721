/** recordVote (`vote-<battle id>`): a judge's vote and its rating change; the id lets a battle be voted once. */
import { arenaActivities } from './arena-activities';
import type { RecordedVote, VoteInput } from './contracts';

export async function recordVote(input: VoteInput): Promise<RecordedVote> {
  return arenaActivities.applyVote(input);
}
