/** Activities of votes and live battles: the Elo change of a vote in one transaction, and closing a live battle. */
import { ApplicationFailure } from '@temporalio/activity';
import type { BattleStatus, Verdict } from '../domain/arena';
import { eloUpdate } from '../domain/ratings/elo';
import type { VoteOutcome } from '../workflows/contracts';
import type { ActivityDeps } from '.';

interface BattleRow {
  id: number;
  status: BattleStatus;
  winner: Verdict | null;
  agent_a_id: number;
  agent_b_id: number;
  prompt_id: number;
}

export function voteActivities({ orm }: ActivityDeps) {
  return {
    /** Applies a vote once: a retry (or a second call) returns the changes the first one stored. */
    async applyVote({ battleId, winner }: { battleId: number; winner: Verdict }): Promise<VoteOutcome> {
      return orm.em.fork().transactional(async (em) => {
        const run = <T>(q: string, p: unknown[]) => em.getConnection().execute<T[]>(q, p, 'all', em.getTransactionContext());
        const [battle] = await run<BattleRow>(
          `select id, status, winner, agent_a_id, agent_b_id, prompt_id from battles where id = ? for update`,
          [battleId],
        );
        if (!battle) throw ApplicationFailure.nonRetryable(`battle ${battleId} does not exist`);
        const changes = async (): Promise<VoteOutcome> => {
          const rows = await run<{ agent_id: number; before: number; after: number }>(
            `select agent_id, before, after from rating_changes where battle_id = ?`,
            [battleId],
          );
          const side = (agentId: number) => {
            const r = rows.find((x) => x.agent_id === agentId)!;
            return { agentId, before: r.before, after: r.after };
          };
          return { battleId, winner: battle.winner ?? winner, a: side(battle.agent_a_id), b: side(battle.agent_b_id) };
        };
        if (battle.status === 'voted') return changes();
        if (battle.status !== 'open') throw ApplicationFailure.nonRetryable(`battle ${battleId} is ${battle.status}, not open for a vote`);

        // Both rows locked in id order, so two votes on overlapping agents cannot deadlock.
        const agents = await run<{ id: number; elo: number }>(
          `select id, elo from agents where id in (?, ?) order by id for update`,
          [battle.agent_a_id, battle.agent_b_id],
        );
        const eloOf = (id: number) => agents.find((a) => a.id === id)!.elo;
        const update = eloUpdate(eloOf(battle.agent_a_id), eloOf(battle.agent_b_id), winner);
        for (const [agentId, side] of [
          [battle.agent_a_id, update.a],
          [battle.agent_b_id, update.b],
        ] as const) {
          await run(`update agents set elo = ? where id = ?`, [side.after, agentId]);
          await run(`insert into rating_changes (agent_id, battle_id, before, after, created_at) values (?, ?, ?, ?, now())`, [
            agentId,
            battleId,
            side.before,
            side.after,
          ]);
        }
        await run(`update battles set status = 'voted', winner = ?, voted_at = now() where id = ?`, [winner, battleId]);
        if (winner === 'both_bad') await run(`update prompts set both_bad_count = both_bad_count + 1 where id = ?`, [battle.prompt_id]);
        battle.winner = winner;
        return changes();
      });
    },

    /** A live battle is votable once both sides answered with something; a side that failed makes it void. */
    async finishLiveBattle({ battleId }: { battleId: number }): Promise<BattleStatus> {
      const [row] = await orm.em.getConnection().execute<Array<{ status: BattleStatus }>>(
        `update battles b set status = case
           when (select count(*) from sessions s where s.id in (b.session_a_id, b.session_b_id)
                 and s.status = 'answered' and length(trim(s.response)) > 0) = 2 then 'open' else 'void' end
         where b.id = ? and b.status = 'running'
         returning status`,
        [battleId],
      );
      if (row) return row.status;
      const [current] = await orm.em.getConnection().execute<Array<{ status: BattleStatus }>>(`select status from battles where id = ?`, [battleId]);
      return current!.status;
    },
  };
}
