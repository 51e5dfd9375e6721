import { erfc, findConcentratedVotes, type GroupedVote } from '../../../domain/ratings/concentrated-votes';
import type { VoteOutcome } from '../../../domain/ratings/elo';
import { mulberry32, standardNormal } from '../../../domain/ratings/random';
import { randomPair } from './synthetic-votes';

/**
 * Simulated arenas: honest judges with realistic noise (each judges more or less sharply than the
 * truth, and calls its own share of ties and both-bads), on agents of a real arena's spread.
 */
interface Judge {
  id: number;
  cluster: number;
  network: string;
  /** Scales the true rating difference: below 1 a blunt judge, above 1 a sharp one. */
  sharpness: number;
  /** Share of verdicts that are a tie or both bad. */
  drawRate: number;
  votes: number;
}

function verdict(random: () => number, judge: Judge, ra: number, rb: number): VoteOutcome {
  if (random() < judge.drawRate) return random() < 0.5 ? 'tie' : 'both_bad';
  const p = 1 / (1 + 10 ** ((judge.sharpness * (rb - ra)) / 400));
  return random() < p ? 'a' : 'b';
}

interface Arena {
  ratings: number[];
  judges: Judge[];
  votes: GroupedVote[];
}

/**
 * `agents` agents with true ratings of sd 250 Elo; `judges` honest judges, each on a network and
 * cluster of its own except for one office of five that shares an address; votes per judge from
 * 10 to about 300 (most judge a little, a few a lot), on random pairs.
 */
function honestArena(seed: number, agents = 10, judgeCount = 40): Arena {
  const random = mulberry32(seed);
  const normal = standardNormal(mulberry32(seed ^ 0x9e3779b9));
  const ratings = Array.from({ length: agents }, () => 1500 + 250 * normal());
  const judges: Judge[] = Array.from({ length: judgeCount }, (_, i) => ({
    id: i + 1,
    cluster: i + 1,
    network: i < 5 ? '198.51.100.7' : `203.0.113.${i}`,
    sharpness: 0.5 + 1.2 * random(),
    drawRate: 0.3 * random(),
    votes: 10 + Math.floor(Math.exp(random() * Math.log(300))),
  }));
  const votes: GroupedVote[] = [];
  for (const judge of judges) {
    for (let v = 0; v < judge.votes; v++) {
      const [a, b] = randomPair(random, agents);
      votes.push({
        judgeId: judge.id,
        cluster: judge.cluster,
        network: judge.network,
        a,
        b,
        outcome: verdict(random, judge, ratings[a - 1]!, ratings[b - 1]!),
      });
    }
  }
  return { ratings, judges, votes };
}

/**
 * An owner's accounts: `accounts` judges registered together from one address, who vote honestly
 * except that their owner's agent wins whenever it is in the pair.
 */
function ownersAccounts(
  arena: Arena,
  target: number,
  accounts: number,
  votesEach: number,
  seed: number,
): GroupedVote[] {
  const random = mulberry32(seed);
  const votes: GroupedVote[] = [];
  for (let k = 0; k < accounts; k++) {
    const judge: Judge = {
      id: 1000 + k,
      cluster: 1000,
      network: '192.0.2.1',
      sharpness: 1,
      drawRate: 0.1,
      votes: votesEach,
    };
    for (let v = 0; v < votesEach; v++) {
      const [a, b] = randomPair(random, arena.ratings.length);
      const outcome =
        a === target ? 'a' : b === target ? 'b' : verdict(random, judge, arena.ratings[a - 1]!, arena.ratings[b - 1]!);
      votes.push({ judgeId: judge.id, cluster: judge.cluster, network: judge.network, a, b, outcome });
    }
  }
  return votes;
}

const asReference = (votes: readonly GroupedVote[]) => votes.map(({ a, b, outcome }) => ({ a, b, outcome }));

describe('findConcentratedVotes', () => {
  it('flags no honest judge, office or address in at least 99% of 300 simulated honest arenas (alpha 0.01)', () => {
    let arenasFlagged = 0;
    let cellsTested = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const arena = honestArena(seed);
      // Half the judges established: the model is fitted to their votes, every judge is tested.
      const reference = asReference(arena.votes.filter((v) => v.judgeId % 2 === 0));
      const report = findConcentratedVotes(arena.votes, reference);
      cellsTested += report.tested;
      if (report.flags.length > 0) arenasFlagged++;
    }
    expect(cellsTested).toBeGreaterThan(300 * 100);
    expect(arenasFlagged).toBeLessThanOrEqual(3);
  });

  it('flags no honest judge when the established judges have barely seen an agent', () => {
    for (let seed = 1; seed <= 50; seed++) {
      const arena = honestArena(seed);
      // Agent 1 only ever met the established judges twice: the model cannot call it weak or strong.
      const reference = asReference(arena.votes.filter((v) => v.judgeId <= 3 && v.a !== 1 && v.b !== 1)).concat(
        asReference(arena.votes.filter((v) => v.a === 1 || v.b === 1).slice(0, 2)),
      );
      expect(findConcentratedVotes(arena.votes, reference).flags).toEqual([]);
    }
  });

  it("flags an owner's accounts registered together that vote for their agent, and names the agent and direction", () => {
    const arena = honestArena(7);
    const weakest = arena.ratings.indexOf(Math.min(...arena.ratings)) + 1;
    // 19 accounts of 20 votes each: about 4 votes each on the owner's agent, too few to flag one account.
    const bought = ownersAccounts(arena, weakest, 19, 20, 99);
    const report = findConcentratedVotes([...arena.votes, ...bought], asReference(arena.votes));
    const flagged = report.flags.map((f) => ({ ...f.group, agentId: f.agentId, direction: f.direction }));
    expect(flagged).toContainEqual({ kind: 'cluster', cluster: 1000, agentId: weakest, direction: 'for' });
    expect(flagged).toContainEqual({ kind: 'address', network: '192.0.2.1', agentId: weakest, direction: 'for' });
    // Nobody honest with them (the target's opponents lost to it in the cluster's votes, so its cells
    // against them may be flagged too: those are the same accounts).
    for (const flag of report.flags) {
      if (flag.group.kind === 'judge') expect(flag.group.judgeId).toBeGreaterThanOrEqual(1000);
      if (flag.group.kind === 'cluster') expect(flag.group.cluster).toBe(1000);
      if (flag.group.kind === 'address') expect(flag.group.network).toBe('192.0.2.1');
    }
  });

  it('flags one account that votes against the best agent whenever it meets it, and keeps its honest votes in the test', () => {
    const arena = honestArena(8);
    const best = arena.ratings.indexOf(Math.max(...arena.ratings)) + 1;
    const random = mulberry32(5);
    const saboteur: GroupedVote[] = [];
    for (let v = 0; v < 150; v++) {
      const [a, b] = randomPair(random, arena.ratings.length);
      const honest: Judge = { id: 500, cluster: 500, network: '192.0.2.9', sharpness: 1, drawRate: 0.1, votes: 0 };
      const outcome =
        a === best ? 'b' : b === best ? 'a' : verdict(random, honest, arena.ratings[a - 1]!, arena.ratings[b - 1]!);
      saboteur.push({ judgeId: 500, cluster: 500, network: '192.0.2.9', a, b, outcome });
    }
    const report = findConcentratedVotes([...arena.votes, ...saboteur], asReference(arena.votes));
    expect(report.flags.map((f) => [f.group, f.agentId, f.direction])).toEqual([
      [{ kind: 'judge', judgeId: 500 }, best, 'against'],
    ]);
  });

  it('tests a cluster or address only when two or more judges voted from it', () => {
    const votes: GroupedVote[] = Array.from({ length: 12 }, () => ({
      judgeId: 1,
      cluster: 1,
      network: '192.0.2.1',
      a: 1,
      b: 2,
      outcome: 'a' as const,
    }));
    const report = findConcentratedVotes(votes, []);
    // One judge: its two agents' cells only.
    expect(report.tested).toBe(2);
  });

  it('computes erfc to the precision a threshold needs', () => {
    expect(erfc(0)).toBeCloseTo(1, 7);
    expect(erfc(1.959964 / Math.SQRT2)).toBeCloseTo(0.05, 6);
    expect(erfc(-1)).toBeCloseTo(1.8427007929, 6);
    expect(erfc(5) / 1.5374597944e-12).toBeCloseTo(1, 5);
  });
});
