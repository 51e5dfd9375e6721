/** liveBattle (`battle-<id>`): two deliveries of one prompt at once, then the battle is closed for judging. */
import { executeChild } from '@temporalio/workflow';
import { arenaActivities } from './arena-activities';
import { deliveryStartOptions, type LiveBattleInput } from './contracts';
import { deliverPrompt } from './deliver-prompt';

export async function liveBattle({ battleId, deliveries }: LiveBattleInput): Promise<string> {
  await Promise.all(deliveries.map((d) => executeChild(deliverPrompt, { ...deliveryStartOptions(d), args: [d] })));
  return arenaActivities.finishLiveBattle({ battleId });
}
