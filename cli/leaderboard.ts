/**
 * `arena leaderboard fit`: refits a board from the public vote export (`GET /api/votes`), with the
 * refresh's own code, so anyone can check the live board's numbers; `--bootstrap N` takes the
 * intervals from N resamples instead, to compare. It needs no database and no arena: only the file.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { BOOTSTRAP_SEED, OVERALL, fitBoards, standingRow, type BoardVote } from '../domain/ratings/boards';
import { comparisonGroups } from '../domain/ratings/intervals';
import { coefficientRow } from '../domain/ratings/style-control';
import { boardVote, readExport } from '../domain/ratings/vote-export';
import { tabulateVotes } from '../domain/ratings/vote-table';
import { CommandError, type Print } from './command';

export interface FitOptions {
  votes: string;
  styleControl?: boolean;
  category?: string;
  minVotes: string;
  json?: boolean;
  bootstrap?: string;
}

export async function fitFromExport(opts: FitOptions, print: Print): Promise<void> {
  const minVotes = Number(opts.minVotes);
  if (!(Number.isSafeInteger(minVotes) && minVotes >= 1))
    throw new CommandError(`--min-votes must be a whole number of at least 1, not ${opts.minVotes}`);
  const bootstrap = opts.bootstrap === undefined ? undefined : Number(opts.bootstrap);
  if (bootstrap !== undefined && !(Number.isSafeInteger(bootstrap) && bootstrap >= 1 && bootstrap <= 10_000))
    throw new CommandError(`--bootstrap must be a whole number of resamples from 1 to 10000, not ${opts.bootstrap}`);
  const stream = createReadStream(opts.votes, 'utf8');
  const opened = new Promise<void>((resolve, reject) => {
    stream.once('open', () => resolve());
    stream.once('error', reject);
  });
  try {
    await opened;
  } catch (error) {
    throw new CommandError(`cannot read ${opts.votes}: ${(error as Error).message}`);
  }
  const parsed = await readExport(createInterface({ input: stream, crlfDelay: Infinity }));
  if (!parsed.ok) throw new CommandError(`${opts.votes}: ${parsed.error}`);

  const board = opts.category ?? OVERALL;
  const styleControl = opts.styleControl === true;
  const counted = parsed.votes.map(boardVote).filter((v) => board === OVERALL || v.category === board);
  const [fitted] = fitBoards(counted, { minVotes, only: { board, styleControl }, bootstrap });
  const entries = fitted?.entries ?? [];
  const rows = entries.map((e) => ({ agent_id: e.agentId, separated: e.separated, ...standingRow(e) }));
  const coefficients = (fitted?.coefficients ?? []).map(coefficientRow);
  // What the fit counted: a battle of an agent against itself tells nothing and is left out.
  const votes = counted.filter((v) => v.a !== v.b).length;
  const groups = agentGroups(counted);
  const method =
    bootstrap === undefined
      ? 'robust 95% intervals in closed form'
      : `${bootstrap} bootstrap resamples (seed ${BOOTSTRAP_SEED})`;
  if (opts.json) {
    print(
      JSON.stringify({
        board,
        style_control: styleControl,
        votes,
        intervals: bootstrap === undefined ? 'closed form' : `bootstrap ${bootstrap}`,
        groups,
        rows,
        coefficients,
      }),
    );
    return;
  }
  const what = `${board === OVERALL ? 'the overall board' : `the ${board} board`}${styleControl ? ', controlled for style' : ''}`;
  if (rows.length === 0) {
    print(`No votes on ${what} in ${opts.votes}.`);
    return;
  }
  print(['rank', 'agent', 'rating', '95% interval', 'votes'].join('\t'));
  for (const r of rows)
    print(
      [
        r.rank ?? 'provisional',
        r.agent_id,
        r.bt_rating.toFixed(1),
        `${r.ci_low.toFixed(1)}–${r.ci_high.toFixed(1)}${r.separated ? ' (votes alone cannot place it)' : ''}`,
        r.votes,
      ].join('\t'),
    );
  for (const c of coefficients)
    print(`style ${c.name}: ${c.estimate.toFixed(4)} (${c.ci_low.toFixed(4)} to ${c.ci_high.toFixed(4)}) log-odds`);
  if (groups.length > 1)
    print(
      `The agents form ${groups.length} groups that never met one another (${groups
        .map((ids) => `agents ${ids.join(', ')}`)
        .join('; ')}): only the prior places one group against another.`,
    );
  print(
    `${what}: ${votes} votes, ${rows.length} agents; Bradley-Terry with ${method}, provisional under ${minVotes} votes`,
  );
}

/** The comparison graph's groups as agent ids, largest first. */
function agentGroups(votes: readonly BoardVote[]): number[][] {
  const table = tabulateVotes(votes);
  return comparisonGroups(table).map((group) => group.map((index) => table.agentIds[index]!));
}
