import type { Browser } from 'playwright-core';
import { answer } from '../support/agent-server';
import { registerJudge } from '../support/test-app';
import { trustJudgesNamed } from '../../services/judges';
import { startArena, type Arena } from '../arena/support';
import * as workflows from '../../workflows';
import { launchBrowser, screenshot } from './browser';
import { signUpInBrowser } from './support';
import { until } from '../support/wait';

let arena: Arena;
let browser: Browser;
let base: string;

const refreshLeaderboard = () =>
  arena.client.workflow.execute(workflows.refreshLeaderboard, {
    taskQueue: arena.t.config.taskQueue,
    workflowId: `refresh-judging-${Date.now()}`,
  });
/** The judging window passes for every answer so far: their votes are published at the next refresh. */
const endJudgingWindow = () => arena.sql(`update sessions set judging_until = now() where judging_until > now()`);

beforeAll(async () => {
  arena = await startArena(2, { ARENA_MIN_GAP_SECONDS: '0', ARENA_PUBLIC_URL: 'http://127.0.0.1' });
  // Enough rounds for three pairs: one for the API's judge, two the browser's judge follows trusted judges to.
  for (let i = 0; i < 5; i++) await arena.dispatch();
  // One vote through the API by a trusted judge, so the leaderboard has rows before the browser votes.
  const judge = await registerJudge(arena.t);
  const battle = (await arena.t.app.inject({ method: 'GET', url: '/api/judge/next', headers: judge.auth })).json();
  await arena.t.app.inject({
    method: 'POST',
    url: `/api/judge/${battle.battle_id}/vote`,
    headers: judge.auth,
    payload: { winner: 'tie' },
  });
  // That battle's answers leave judging, so its vote counts at the refresh; the other answers stay in it.
  await arena.sql(
    `update sessions s set judging_until = now() from battles b
     where b.id = ? and s.id in (b.session_a_id, b.session_b_id) and s.judging_until > now()`,
    [battle.battle_id],
  );
  await refreshLeaderboard();
  // Another trusted judge votes on a pair and opens the next: a judge in probation is handed only
  // pairs a trusted judge has, so the browser's judge follows it to these two.
  // (From an address of its own: the browser's judge shares no slot of a pair with it.)
  const opener = await registerJudge(arena.t, '203.0.113.9');
  const asOpener = { headers: opener.auth, remoteAddress: opener.ip };
  const first = (await arena.t.app.inject({ method: 'GET', url: '/api/judge/next', ...asOpener })).json();
  await arena.t.app.inject({
    method: 'POST',
    url: `/api/judge/${first.battle_id}/vote`,
    ...asOpener,
    payload: { winner: 'b' },
  });
  expect((await arena.t.app.inject({ method: 'GET', url: '/api/judge/next', ...asOpener })).statusCode).toBe(200);
  base = await arena.t.app.listen({ port: 0, host: '127.0.0.1' });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await arena.close();
});

const eloOnLeaderboard = async (page: import('playwright-core').Page) => {
  await page.goto(`${base}/`);
  const rows = await page
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())));
  // Columns: rank, agent, owner, tier, rating, Elo, votes.
  return Object.fromEntries(rows.map((cells) => [cells[1], { elo: Number(cells[5]), votes: Number(cells[6]) }]));
};

it('judges a pair on /judge: anonymous answers side by side, four buttons, then the reveal, the next pair and a changed leaderboard', async () => {
  const page = await browser.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${base}/judge`);
  // Not signed in: sent to sign in first, and back here afterwards.
  await page.waitForURL(/\/login\?next=%2Fjudge$/);
  const judgeName = await signUpInBrowser(page, base);
  const before = await eloOnLeaderboard(page);
  expect(Object.keys(before).sort()).toEqual(['agent-0', 'agent-1']);

  await page.goto(`${base}/judge`);
  await screenshot(page, 'judge-pair');
  expect(await page.locator('.side').count()).toBe(2);
  const sides = await page.locator('.side .answer').allInnerTexts();
  expect(sides.sort()).toEqual(['answer from /agent-0', 'answer from /agent-1']);
  // Anonymous: no owner and no profile link before the vote (the answers themselves name their path).
  const text = await page.locator('main').innerText();
  for (const owner of arena.owners) expect(text).not.toContain(owner.username);
  expect(await page.locator('main a[href^="/agents/"]').count()).toBe(0);
  expect(await page.locator('form.vote button').allInnerTexts()).toEqual([
    'A is better',
    'B is better',
    'Tie',
    'Both bad',
  ]);
  const battleId = Number((await page.locator('form.vote').getAttribute('action'))!.match(/\/battle\/(\d+)\/vote/)![1]);
  // A new account is in probation: the page says where it stands before it votes.
  expect(await page.locator('main .notice').innerText()).toMatch(
    /^You are in probation: your votes count on no board and move no Elo until you are established/,
  );

  await page.click('form.vote button[value=a]');
  await page.waitForURL(`${base}/judge?voted=${battleId}`);
  await screenshot(page, 'judge-reveal');
  const reveal = page.locator('.reveal');
  expect(await reveal.locator('h2').innerText()).toBe('Your vote: A is better');
  const revealedRows = () =>
    reveal
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent!.trim())));
  const revealed = await revealedRows();
  expect(revealed).toHaveLength(2);
  // A vote cast in probation moves no Elo, and the reveal says why and what is left.
  expect(revealed.map((row) => row[4])).toEqual(['0', '0']);
  expect(await reveal.locator('.standing').innerText()).toMatch(
    /So far \d+ of your votes were on pairs a trusted judge also voted on, .*Left before your votes count: 7 more days of account age; \d+ more compared votes\.$/,
  );
  // The next pair is on the same page, ready to judge.
  expect(await page.locator('form.vote').count()).toBe(1);
  const nextAction = (await page.locator('form.vote').getAttribute('action'))!;
  expect(nextAction).not.toBe(`/battle/${battleId}/vote`);

  // Once an operator vouches for the judge, its votes from then on count: Elo at once, the board at the refresh.
  await trustJudgesNamed(arena.t.orm.em.fork(), [judgeName]);
  const answerA = (await page.locator('#side-a .answer').innerText()).trim();
  await page.click('form.vote button[value=a]');
  await page.waitForURL(/\/judge\?voted=\d+$/);
  const counted = await revealedRows();
  const winnerName = answerA.replace('answer from /', '');
  expect(counted[0]![1]).toBe(winnerName);
  const [eloBefore, eloAfter] = counted[0]![3]!.split(' → ').map(Number);
  expect(eloAfter).toBeGreaterThan(eloBefore!);
  expect(counted[0]![4]).toBe(`+${eloAfter! - eloBefore!}`);
  expect(await reveal.locator('.standing').count()).toBe(0);
  const after = await eloOnLeaderboard(page);
  expect(after[winnerName]!.elo).toBe(eloAfter);
  await endJudgingWindow();
  await refreshLeaderboard();
  const refreshed = await eloOnLeaderboard(page);
  // The vote cast in probation never counts; the one cast trusted does.
  expect(refreshed[winnerName]!.votes).toBe(before[winnerName]!.votes + 1);
  await screenshot(page, 'leaderboard-after-vote');
  await page.close();
});

it('runs a live battle on /battle: both answers appear together once both are in, then the vote and the reveal', async () => {
  // agent-1 holds its live answer until the test lets it go.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  arena.server.behave((req, res) => {
    const live = JSON.parse(req.body).category === 'live';
    if (live && req.url === '/agent-1')
      void held.then(() => answer(200, { response: '**bold** answer from /agent-1' })(req, res));
    else answer(200, { response: `answer from ${req.url}` })(req, res);
  });
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
  await signUpInBrowser(page, base);
  await page.goto(`${base}/battle`);
  await page.fill('textarea[name=prompt]', 'Name a prime number greater than 10.');
  await screenshot(page, 'battle-new');
  await page.click('form.card button[type=submit]');
  await page.waitForURL(/\/battle\/\d+$/);
  const battleUrl = page.url();

  // One answer is in, the other is still coming: the page shows neither, nor which came first, and offers no vote yet.
  const battleId = Number(/\/battle\/(\d+)$/.exec(battleUrl)?.[1]);
  await until(
    async () =>
      (
        await arena.sql<{ n: number }>(
          `select count(*)::int as n from sessions s join battles b on s.id in (b.session_a_id, b.session_b_id)
           where b.id = ? and s.status = 'answered'`,
          [battleId],
        )
      )[0]!.n === 1,
  );
  await page.reload();
  expect(await page.locator('.waiting').count()).toBe(2);
  expect(await page.locator('.side .answer').count()).toBe(0);
  expect(await page.locator('form.vote').count()).toBe(0);
  await screenshot(page, 'battle-waiting');
  release();
  // The page refreshes itself (no reload by the test) until both answers are in.
  await page.locator('form.vote').waitFor({ timeout: 20_000 });
  expect(page.url()).toBe(battleUrl);
  expect(await page.locator('.side strong').innerText()).toBe('bold');
  await screenshot(page, 'battle-open');

  await page.click('form.vote button[value=tie]');
  await page.waitForURL(battleUrl);
  await page.locator('.reveal').waitFor();
  expect(await page.locator('.reveal h2').innerText()).toBe('Your vote: A tie');
  expect((await page.locator('.side h2 a').allInnerTexts()).sort()).toEqual(['agent-0', 'agent-1']);
  expect(await page.locator('form.vote').count()).toBe(0);
  const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
  expect(overflow).toBeLessThanOrEqual(0);
  await screenshot(page, 'battle-reveal');
  await page.close();
  arena.server.behave(answer());
});
