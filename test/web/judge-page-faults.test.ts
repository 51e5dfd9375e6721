/** The /judge page ignores a reveal link for a battle that is not the judge's, but never hides a real fault behind it. */
import { battleOfJudge } from '../../services/judging';
import { startTestApp, type TestApp } from '../support/test-app';
import { WebClient } from './support';

// The real use case, wrapped so one test can make its database read fail.
jest.mock('../../services/judging', () => {
  const actual = jest.requireActual('../../services/judging');
  return { ...actual, battleOfJudge: jest.fn(actual.battleOfJudge) };
});

let t: TestApp;
let judge: WebClient;
beforeAll(async () => {
  t = await startTestApp();
  judge = new WebClient(t.app);
  await judge.signUp(`faults${Date.now() % 100000}`);
});
afterAll(() => t.close());

const judgePage = (voted: number) =>
  judge.request({ method: 'GET', url: `/judge?voted=${voted}`, headers: { accept: 'text/html' } });

it('shows the page without a reveal when the voted battle is not the judge’s', async () => {
  const res = await judgePage(2_000_000_000);
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^text\/html/);
});

it('answers 503 when the database fails while looking up the voted battle', async () => {
  const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  jest.mocked(battleOfJudge).mockRejectedValueOnce(outage);
  const res = await judgePage(1);
  expect(res.statusCode).toBe(503);
  expect(res.headers['retry-after']).toBe('5');
  expect(res.body).toContain('the database is unavailable; try again shortly');
});
