/**
 * `arena leaderboard fit`: refits a board from the public vote export (`GET /api/votes`), with the
 * refresh's own code, bootstrap seed and resamples, so anyone can check the live board's numbers.
 * It needs no database and no arena: only the file.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { BOOTSTRAP_RESAMPLES, BOOTSTRAP_SEED, OVERALL, fitBoards } from '../domain/ratings/boards';
import { boardVote, readExport } from '../domain/ratings/vote-export';
import { CommandError, type Print } from './command';

export interface FitOptions {
  votes: string;
  styleControl?: boolean;
  category?: string;
  minVotes: string;
  json?: boolean;
}

export async function fitFromExport(opts: FitOptions, print: Print): Promise<void> {
  const minVotes = Number(opts.minVotes);
  if (!(Number.isSafeInteger(minVotes) && minVotes >= 1))
    throw new CommandError(`--min-votes must be a whole number of at least 1, not ${opts.minVotes}`);
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
  const [fitted] = fitBoards(parsed.votes.map(boardVote), { minVotes, only: { board, styleControl } });
  const entries = fitted?.entries ?? [];
  const rows = entries.map((e) => ({
    agent_id: e.agentId,
    rank: e.rank,
    provisional: e.provisional,
    bt_rating: e.rating,
    ci_low: e.ciLow,
    ci_high: e.ciHigh,
    votes: e.votes,
    wins: e.wins,
    losses: e.losses,
    ties: e.ties,
  }));
  const coefficients = (fitted?.coefficients ?? []).map((c) => ({
    name: c.name,
    estimate: c.estimate,
    ci_low: c.ciLow,
    ci_high: c.ciHigh,
  }));
  const counted = opts.category ? parsed.votes.filter((v) => v.category === opts.category).length : parsed.votes.length;
  if (opts.json) {
    print(JSON.stringify({ board, style_control: styleControl, votes: counted, rows, coefficients }));
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
        `${r.ci_low.toFixed(1)}–${r.ci_high.toFixed(1)}`,
        r.votes,
      ].join('\t'),
    );
  for (const c of coefficients)
    print(`style ${c.name}: ${c.estimate.toFixed(4)} (${c.ci_low.toFixed(4)} to ${c.ci_high.toFixed(4)}) log-odds`);
  print(
    `${what}: ${counted} votes, ${rows.length} agents; Bradley-Terry with ${BOOTSTRAP_RESAMPLES} bootstrap resamples (seed ${BOOTSTRAP_SEED}), provisional under ${minVotes} votes`,
  );
}
