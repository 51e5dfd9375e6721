/** liveBattle (`battle-<id>`): two deliveries of one prompt at once, a failed side replaced once, then the battle is closed for judging. */
import { deprecatePatch, executeChild } from '@temporalio/workflow';
import { arenaActivities } from './arena-activities';
import { deliveryStartOptions, type DeliveryInput, type LiveBattleInput } from './contracts';
import { deliverPrompt } from './deliver-prompt';

/** Retired (docs/decisions.md, "Workflow versions"): every battle replaces a failed side once; the marker stays for those begun while it was patched. */
const REPLACEMENT_PATCH = 'live-battle-replacement';

const deliver = (d: DeliveryInput) => executeChild(deliverPrompt, { ...deliveryStartOptions(d), args: [d] });

export async function liveBattle({ battleId, deliveries }: LiveBattleInput): Promise<string> {
  const outcomes = await Promise.all(deliveries.map(deliver));
  deprecatePatch(REPLACEMENT_PATCH);
  if (outcomes.some((o) => o.status !== 'answered')) {
    const replacements = await arenaActivities.replaceFailedLiveSides({ battleId });
    await Promise.all(replacements.map(deliver));
  }
  return arenaActivities.finishLiveBattle({ battleId });
}
