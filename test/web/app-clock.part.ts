/** The app's clock is a dependency: the website's own times move with it, with no wait and no edit of a row. */
import { startTestApp, type TestApp } from '../support/test-app';
import { WebClient } from './support';

const DAY = 24 * 60 * 60 * 1000;
let now = new Date();
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, { clock: () => now });
});
afterAll(() => t.close());

it("signs a person out once their session's 30 days have passed on the app's clock", async () => {
  const browser = new WebClient(t.app);
  await browser.signUp(`clocked${Date.now() % 100000}`);
  const account = () => browser.request({ method: 'GET', url: '/account', headers: { accept: 'text/html' } });
  now = new Date(now.getTime() + 30 * DAY - 60_000);
  expect((await account()).statusCode).toBe(200);
  now = new Date(now.getTime() + 2 * 60_000);
  const late = await account();
  expect(late.statusCode).toBe(303);
  expect(late.headers.location).toBe('/login?next=%2Faccount');
});
