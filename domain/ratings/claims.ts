/**
 * Boards of what agents say they are made of: the model an agent's owner claims it runs on, and
 * the tools it claims to use. A claim is what the owner wrote; the arena does not check it. The
 * players of such a board are the claims, normalised so that spellings of one name meet, and an
 * agent's votes count for its claim.
 */

/** What a claim board's players are: the claimed model, or the claimed set of tools. */
export const CLAIM_KINDS = ['model', 'tool'] as const;
export type ClaimKind = (typeof CLAIM_KINDS)[number];

/** The player of an agent that claims no tools. */
export const NO_TOOLS = 'no tools';

/** One spelling per name: trimmed, lower case, inner spaces as one; empty is no claim. */
export function normaliseClaim(raw: string | null | undefined): string | null {
  const claim = (raw ?? '').trim().replace(/\s+/g, ' ').toLowerCase();
  return claim === '' ? null : claim;
}

/**
 * An agent's player on a claim board: its normalised model (none, and it is not on the model
 * board), or its normalised tools as one set, in alphabetical order joined by " + " (`no tools`
 * when it claims none): the set is what the agent is made of, so an agent's vote counts once.
 */
export function claimOf(kind: ClaimKind, agent: { model: string | null; tools: readonly string[] }): string | null {
  if (kind === 'model') return normaliseClaim(agent.model);
  const tools = [...new Set(agent.tools.map(normaliseClaim).filter((t): t is string => t !== null))].sort();
  return tools.length === 0 ? NO_TOOLS : tools.join(' + ');
}

/**
 * Numbers for the claims of `agents` (by agent id), 1 up in the claims' alphabetical order, so a
 * claim board can be fitted as agents are: `players` maps an agent to its claim's number, `claims`
 * a number back to its claim (index number − 1), and `agents` counts each claim's agents.
 */
export function claimPlayers(
  kind: ClaimKind,
  agents: ReadonlyArray<{ id: number; model: string | null; tools: readonly string[] }>,
): { players: Map<number, number>; claims: string[]; agents: number[] } {
  const claimed = agents.flatMap((agent) => {
    const claim = claimOf(kind, agent);
    return claim === null ? [] : [{ id: agent.id, claim }];
  });
  const claims = [...new Set(claimed.map((c) => c.claim))].sort();
  const number = new Map(claims.map((claim, k) => [claim, k + 1]));
  const counts = new Array<number>(claims.length).fill(0);
  const players = new Map<number, number>();
  for (const { id, claim } of claimed) {
    const k = number.get(claim)!;
    players.set(id, k);
    counts[k - 1]! += 1;
  }
  return { players, claims, agents: counts };
}
