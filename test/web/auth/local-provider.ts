/** Starts test/web/auth/oidc-provider.mjs in a child process, and drives its login and consent screens over plain HTTP. */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface ProviderClaims {
  email?: string;
  email_verified?: boolean;
}

export interface RunningProvider {
  issuer: string;
  stop(): Promise<void>;
}

export function startOidcProvider(options: {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  accounts: Record<string, ProviderClaims>;
}): Promise<RunningProvider> {
  const child = spawn(process.execPath, [path.join(__dirname, 'oidc-provider.mjs')], {
    env: {
      ...process.env,
      OIDC_CLIENT_ID: options.clientId,
      OIDC_CLIENT_SECRET: options.clientSecret,
      OIDC_REDIRECT_URI: options.redirectUri,
      OIDC_ACCOUNTS: JSON.stringify(options.accounts),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the OpenID provider did not start within 15 s:\n${output}`));
    }, 15_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const ready = /ready (\S+)/.exec(output);
      if (ready) {
        clearTimeout(timer);
        resolve({ issuer: ready[1]!, stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the OpenID provider exited with ${code}:\n${output}`));
    });
  });
}

/** The provider's side of a browser: follows its redirects, keeps its cookies, fills its login and consent forms. */
export class ProviderVisitor {
  private readonly cookies = new Map<string, string>();

  /**
   * From the authorization URL to the redirect back to the app: logs in as `login` and consents.
   * Returns the first Location that points outside the provider.
   */
  async signIn(authorizationUrl: string, login: string): Promise<string> {
    const origin = new URL(authorizationUrl).origin;
    let next: { url: string; method: 'GET' | 'POST'; form?: URLSearchParams } = {
      url: authorizationUrl,
      method: 'GET',
    };
    for (let step = 0; step < 20; step++) {
      const res = await this.fetch(next.url, next.method, next.form);
      const location = res.headers.get('location');
      if (location) {
        const target = new URL(location, next.url);
        if (target.origin !== origin) return target.href;
        next = { url: target.href, method: 'GET' };
        continue;
      }
      const html = await res.text();
      if (res.status !== 200) throw new Error(`the provider answered ${res.status}: ${html.slice(0, 500)}`);
      const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
      const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
      if (!action || !prompt) throw new Error(`no login or consent form on the provider's page: ${html.slice(0, 500)}`);
      const form = new URLSearchParams({ prompt });
      if (prompt === 'login') {
        form.set('login', login);
        form.set('password', 'any password');
      }
      next = { url: new URL(action.replace(/&amp;/g, '&'), next.url).href, method: 'POST', form };
    }
    throw new Error('the provider kept redirecting');
  }

  private async fetch(url: string, method: 'GET' | 'POST', form?: URLSearchParams): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/html' };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(url, { method, headers, body: form?.toString(), redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim()];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }
}
