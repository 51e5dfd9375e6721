/** Activities of votes and live battles: the Elo change of a vote in one transaction, and closing a live battle. */
import { ApplicationFailure } from '@temporalio/activity';
import type { BattleStatus, Verdict } from '../domain/arena';
import { eloWeight, judgedAs } from '../domain/judges';
import { eloUpdate } from '../domain/ratings/elo';
import { lockElos, setElo } from '../infra/db/repositories/agent.repository';
import {
  battleStatus,
  finishRunningBattle,
  lockBattleToVote,
  markBattleVoted,
} from '../infra/db/repositories/battle.repository';
import { countPairVote, sessionsFullyVoted } from '../infra/db/repositories/pair.repository';
import { countBothBad } from '../infra/db/repositories/prompt.repository';
import { standingOf } from '../infra/db/repositories/judge-standing.repository';
import { openHoldOn } from '../infra/db/repositories/vote-hold.repository';
import { insertRatingChange, ratingChangesOf } from '../infra/db/repositories/rating.repository';
import { endJudging } from '../infra/db/repositories/delivery.repository';
import type { RecordedVote } from '../workflows/contracts';
import type { ActivityDeps } from './deps';

/** Votes need only the database and the arena's settings. */
export function voteActivities({ orm, arena }: Pick<ActivityDeps, 'orm' | 'arena'>) {
  return {
    /** Applies a vote once: a retry (or a second call) returns the changes the first one stored. */
    async applyVote({ battleId, winner }: { battleId: number; winner: Verdict }): Promise<RecordedVote> {
      return orm.em.fork().transactional(async (em) => {
        const battle = await lockBattleToVote(em, battleId);
        if (!battle) throw ApplicationFailure.nonRetryable(`battle ${battleId} does not exist`);
        const changes = async (): Promise<RecordedVote> => {
          const rows = await ratingChangesOf(em, battleId);
          const side = (agentId: number) => {
            const r = rows.find((x) => x.agent_id === agentId)!;
            return { agentId, before: r.before, after: r.after };
          };
          return { battleId, winner: battle.winner ?? winner, a: side(battle.agent_a_id), b: side(battle.agent_b_id) };
        };
        if (battle.status === 'voted') return changes();
        if (battle.status !== 'open')
          throw ApplicationFailure.nonRetryable(`battle ${battleId} is ${battle.status}, not open for a vote`);

        const agents = await lockElos(em, [battle.agent_a_id, battle.agent_b_id]);
        const eloOf = (id: number) => agents.find((a) => a.id === id)!.elo;
        // Only an established judge's vote on a pool pair moves Elo (domain/judges.ts): K = 0 otherwise.
        const judged = judgedAs(await standingOf(em, battle.judge_id));
        // A rule-established judge's vote on an agent under a hold joins the hold as cast, and moves nothing.
        const holdId =
          judged === 'established' && !battle.live
            ? await openHoldOn(em, [battle.agent_a_id, battle.agent_b_id])
            : undefined;
        const weight = holdId === undefined ? eloWeight(judged, battle.live) : 0;
        const update = eloUpdate(eloOf(battle.agent_a_id), eloOf(battle.agent_b_id), winner, weight);
        for (const [agentId, side] of [
          [battle.agent_a_id, update.a],
          [battle.agent_b_id, update.b],
        ] as const) {
          await setElo(em, agentId, side.after);
          await insertRatingChange(em, { agentId, battleId, before: side.before, after: side.after });
        }
        await markBattleVoted(em, battleId, { winner, judgedAs: judged, eloWeight: weight, holdId: holdId ?? null });
        if (winner === 'both_bad') await countBothBad(em, battle.prompt_id);
        // A live battle's two answers are judged by its one vote; a pool answer by its pairs' votes.
        if (battle.live) {
          await endJudging(em, [battle.session_a_id, battle.session_b_id]);
        } else {
          await countPairVote(em, battle.pair_low, battle.pair_high);
          await endJudging(em, await sessionsFullyVoted(em, battle.pair_low, battle.pair_high, arena.votesPerPair));
        }
        battle.winner = winner;
        return changes();
      });
    },

    /** A live battle is votable once both sides answered with something; a side that failed makes it void. */
    async finishLiveBattle({ battleId }: { battleId: number }): Promise<BattleStatus> {
      return (await finishRunningBattle(orm.em, battleId)) ?? battleStatus(orm.em, battleId);
    },
  };
}
