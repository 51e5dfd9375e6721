/**
 * The main arena's workflows: the scheduled dispatch, a vote (`vote-<battle id>`, so a battle can
 * be voted once), and a live battle (`battle-<id>`: two deliveries of one prompt at once).
 */
import { executeChild, ParentClosePolicy, proxyActivities, startChild, workflowInfo } from '@temporalio/workflow';
import type { createActivities } from '../activities';
import type { Verdict } from '../domain/arena';
import { deliveryStartOptions, type LiveBattleInput, type VoteOutcome } from './contracts';
import { deliverPrompt } from './deliver-prompt';

type Activities = ReturnType<typeof createActivities>;

const { dispatchMainPrompts, applyVote, finishLiveBattle, refreshLeaderboard: refitLeaderboard } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/** One dispatch step (run by the schedule): a pool prompt to every due agent, each as its own delivery. */
export async function dispatchArena(): Promise<number> {
  const deliveries = await dispatchMainPrompts({ dispatchKey: workflowInfo().runId });
  for (const delivery of deliveries) {
    await startChild(deliverPrompt, {
      ...deliveryStartOptions(delivery),
      args: [delivery],
      parentClosePolicy: ParentClosePolicy.ABANDON,
    });
  }
  return deliveries.length;
}

export async function recordVote(input: { battleId: number; winner: Verdict }): Promise<VoteOutcome> {
  return applyVote(input);
}

export async function liveBattle({ battleId, deliveries }: LiveBattleInput): Promise<string> {
  await Promise.all(deliveries.map((d) => executeChild(deliverPrompt, { ...deliveryStartOptions(d), args: [d] })));
  return finishLiveBattle({ battleId });
}

/** Run by the leaderboard schedule: the fit happens in an activity, never per request. */
export async function refreshLeaderboard(): Promise<string> {
  const { agents, votes, flaggedJudges } = await refitLeaderboard();
  return `${agents} agents from ${votes} votes; ${flaggedJudges} judges flagged`;
}
