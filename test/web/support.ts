/** Browser steps the website tests share. */
import type { Page } from 'playwright-core';
import { Browser } from './auth/support';

let people = 0;

/** Signs a new person up through the real form, then in on the page sign-up answers with; returns their username, signed in on `page`. */
export async function signUpInBrowser(
  page: Page,
  base: string,
  name = `person${++people}${Date.now() % 100000}`,
): Promise<string> {
  await page.goto(`${base}/signup`);
  await page.fill('input[name=email]', `${name}@example.org`);
  await page.fill('input[name=username]', name);
  await page.fill('input[name=password]', 'a long enough password');
  await page.click('form.card button[type=submit]');
  await page.waitForSelector('form[action="/login"]');
  await page.fill('input[name=password]', 'a long enough password');
  await page.click('form.card button[type=submit]');
  await page.waitForURL(`${base}/`).catch(async (err) => {
    throw new Error(`${err}\n${page.url()}\n${await page.content()}`);
  });
  return name;
}

/** The `app.inject` cookie jar of the sign-in tests, taking its CSRF tokens from the real pages' forms. */
export class WebClient extends Browser {
  override async csrf(): Promise<string> {
    const html = (await this.request({ method: 'GET', url: '/signup', headers: { accept: 'text/html' } })).body;
    const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    if (!token) throw new Error('no CSRF token on /signup');
    return token;
  }

  /** Signs a new person up through the form and logs them in (sign-up itself never does); returns their username. */
  async signUp(name: string): Promise<string> {
    const email = `${name}@example.org`;
    const res = await this.submit('/signup', { email, username: name, password: 'a long enough password' });
    if (res.statusCode !== 200) throw new Error(`sign-up failed: ${res.statusCode} ${res.body.slice(0, 300)}`);
    const login = await this.submit('/login', { email, password: 'a long enough password' });
    if (login.statusCode !== 303)
      throw new Error(`log-in after sign-up failed: ${login.statusCode} ${login.body.slice(0, 300)}`);
    return name;
  }
}
