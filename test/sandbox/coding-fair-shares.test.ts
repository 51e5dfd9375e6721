/**
 * Fair shares of the sandbox, end to end: many submissions scored at once each score what they score
 * alone. On the code before judges had uids of their own, four of these eight scored `failed 0`: eight
 * JavaScript judges need 104 processes of the one uid they shared, whose limit is 64.
 *
 * test/slow/coding-fair-shares.test.ts holds the longer case: another account's judges waiting out
 * code that never answers, for a call limit each.
 */
import { solutionOf, useFairSharesArena } from './fair-shares-support';

const TASK = 'javascript/cart-total';
const { accounts, open, write, submit } = useFairSharesArena();

it('scores eight submissions at once as each scores alone', async () => {
  const solution = await solutionOf(TASK);
  const sessions = [...(await open(accounts.holder, 4, TASK)), ...(await open(accounts.neighbour, 4, TASK))];
  for (const w of sessions) await write(w, solution);
  const results = await Promise.all(sessions.map(submit));
  expect(results.map((r) => `${r.status} ${r.tests_passed}`)).toEqual(Array(8).fill('passed 8'));
}, 300_000);
