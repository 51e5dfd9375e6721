/** liveBattle (`battle-<id>`): two deliveries of one prompt at once, a failed side replaced once, then the battle is closed for judging. */
import { executeChild, patched } from '@temporalio/workflow';
import { arenaActivities } from './arena-activities';
import { deliveryStartOptions, type DeliveryInput, type LiveBattleInput } from './contracts';
import { deliverPrompt } from './deliver-prompt';

/** Battles begun before replacements existed go straight to their verdict (the patch marker tells them apart). */
const REPLACEMENT_PATCH = 'live-battle-replacement';

const deliver = (d: DeliveryInput) => executeChild(deliverPrompt, { ...deliveryStartOptions(d), args: [d] });

export async function liveBattle({ battleId, deliveries }: LiveBattleInput): Promise<string> {
  const outcomes = await Promise.all(deliveries.map(deliver));
  if (patched(REPLACEMENT_PATCH) && outcomes.some((o) => o.status !== 'answered')) {
    const replacements = await arenaActivities.replaceFailedLiveSides({ battleId });
    await Promise.all(replacements.map(deliver));
  }
  return arenaActivities.finishLiveBattle({ battleId });
}
