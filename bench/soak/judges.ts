/**
 * The soak's judging: one person starts live battles and judges what `judge/next` hands out (main
 * pairs and their own live battles), voting each verdict in turn; afterwards every vote is accounted for in
 * the database. A vote counts once when its battle holds exactly two rating changes (one per side)
 * and every agent's Elo is where its changes, applied in order, put it.
 */
import type { Pool } from 'pg';
import { INITIAL_ELO } from '../../domain/ratings/elo';
import { VERDICTS } from '../../domain/arena';

/** Sends one request as the judge and records its latency under `kind`; undefined when it failed outright. */
export type JudgeRequest = (kind: string, method: string, url: string, body?: unknown) => Promise<Response | undefined>;

export interface VoteRow {
  liveBattlesStarted: number;
  /** Votes the API answered 200. */
  acknowledged: number;
  /** Votes it refused (409: already voted, or the battle is void). */
  refused: number;
  /** Votes whose answer never came or was a 5xx: each may or may not have landed. */
  unanswered: number;
  /** Battles the database holds as voted by the judge. */
  battlesVoted: number;
  /** Voted battles whose rating changes are not exactly two: a vote counted twice, or half. */
  changesNotTwo: number;
  /** Battles not voted that hold rating changes. */
  changesWithoutVote: number;
  /** Agents whose Elo differs from their rating changes applied in order from the start. */
  eloMismatches: number;
}

export class SoakJudge {
  readonly tally = { liveBattlesStarted: 0, acknowledged: 0, refused: 0, unanswered: 0 };
  private turn = 0;

  constructor(
    private readonly request: JudgeRequest,
    private readonly deadlineSeconds: number,
  ) {}

  /** A live battle of the judge's own prompt; the arena picks the two agents. */
  readonly liveBattle = async (): Promise<void> => {
    const res = await this.request('live battle', 'POST', '/api/battles', {
      prompt: `soak live battle ${++this.turn}`,
      deadline_seconds: this.deadlineSeconds,
    });
    if (res?.status === 202) this.tally.liveBattlesStarted += 1;
    await res?.body?.cancel();
  };

  /** The judge's next battle, voted (the next verdict in turn) once both answers are in. */
  readonly judgeNext = async (): Promise<void> => {
    const next = await this.request('judge next', 'GET', '/api/judge/next');
    if (next?.status !== 200) return void (await next?.body?.cancel());
    const battle = (await next.json()) as { battle_id: number; status: string };
    if (battle.status !== 'open') return;
    const winner = VERDICTS[this.turn++ % VERDICTS.length];
    const vote = await this.request('vote', 'POST', `/api/judge/${battle.battle_id}/vote`, { winner });
    await vote?.body?.cancel();
    if (vote?.status === 200) this.tally.acknowledged += 1;
    else if (vote?.status === 409) this.tally.refused += 1;
    else this.tally.unanswered += 1;
  };
}

/** Reads the votes back from the database: how many landed, and whether any counted twice. */
export async function voteAccounting(
  pool: Pool,
  judgeId: number,
  agentIds: number[],
  tally: SoakJudge['tally'],
): Promise<VoteRow> {
  const { rows: battles } = await pool.query<{ voted: boolean; changes: number }>(
    `select b.status = 'voted' as voted, (select count(*)::int from rating_changes rc where rc.battle_id = b.id) as changes
     from battles b where b.judge_id = $1`,
    [judgeId],
  );
  const { rows: agents } = await pool.query<{ id: number; elo: number }>(
    `select id, elo from agents where id = any($1::int[])`,
    [agentIds],
  );
  const { rows: changes } = await pool.query<{ agent_id: number; before: number; after: number }>(
    `select agent_id, before, after from rating_changes where agent_id = any($1::int[]) order by id`,
    [agentIds],
  );
  // Each change must start where the agent's previous one ended, and the last must be its Elo now.
  const walked = new Map<number, number | null>();
  for (const c of changes) {
    const at = walked.get(c.agent_id) ?? INITIAL_ELO;
    walked.set(c.agent_id, at === c.before ? c.after : null);
  }
  return {
    ...tally,
    battlesVoted: battles.filter((b) => b.voted).length,
    changesNotTwo: battles.filter((b) => b.voted && b.changes !== 2).length,
    changesWithoutVote: battles.filter((b) => !b.voted && b.changes > 0).length,
    eloMismatches: agents.filter((a) => (walked.get(a.id) ?? INITIAL_ELO) !== a.elo).length,
  };
}
