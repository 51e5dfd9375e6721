/**
 * Fair shares of the sandbox under a holder: one account's four sessions whose code never answers (a
 * promise that never settles, a call that never returns and burns its CPU) keep their judges for a
 * call limit (30 s) each, and another account's correct fix of the same task, scored meanwhile,
 * scores what it scores alone. On the code before judges had uids of their own, the JavaScript fix
 * scored `failed 0/8`: the holder's four judges held 52 of the 64 processes of the uid all judges
 * shared.
 *
 * In the slow set (about two minutes and a half). test/sandbox/coding-fair-shares.test.ts, in `npm
 * test`, scores eight submissions at once on the same path; test/unit/sandbox/judge-uids.test.ts
 * and test/unit/domain/fair-slots.test.ts hold the uids and the slots.
 */
import { until } from '../support/wait';
import { judgesRunning, solutionOf, useFairSharesArena } from '../sandbox/fair-shares-support';

const { accounts, open, write, submit } = useFairSharesArena();

/** Code that keeps its judge waiting until the call limit: a promise that never settles, a call that never returns. */
const HOLDING = {
  'javascript/cart-total': {
    path: 'cart.mjs',
    content: 'export function cartTotal() {\n  return new Promise(() => {});\n}\n',
  },
  'python/leap-year': {
    path: 'calendar_utils.py',
    content:
      'def is_leap(year):\n    while True:\n        pass\n\ndef days_in_year(year):\n    return is_leap(year)\n\ndef days_in_month(year, month):\n    return is_leap(year)\n',
  },
} as const;

it.each(Object.keys(HOLDING) as (keyof typeof HOLDING)[])(
  "scores a neighbour's fix of %s as it scores alone while another account's four judges wait out code that never answers",
  async (task) => {
    const held = await open(accounts.holder, 4, task);
    for (const w of held) await write(w, [HOLDING[task]]);
    const holding = held.map(submit);
    // The holder's judges are waiting on their candidates when the neighbour's session is scored.
    await until(async () => (await judgesRunning()) >= 2, "two of the holder's judges running", 60_000);
    const [fix] = await open(accounts.neighbour, 1, task);
    await write(fix!, await solutionOf(task));
    expect(await submit(fix!)).toMatchObject({ status: 'passed', tests_passed: 8 });
    // The holder's own code failed its own tests.
    for (const result of await Promise.all(holding)) expect(result).toMatchObject({ status: 'failed' });
  },
  300_000,
);
