/** The API as its own process (the compiled `npm run api`, from this run's build), for restart, scale-out and build tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sharedProcessEnv, type TestApp } from './test-app';
import { apiNodeArgs } from '../../bench/stack/api-command';
import { assertBuilt } from './build';

const REPO = path.resolve(__dirname, '..', '..');
const READY_LINE = /API listening on (\S+)/;
const READY_MS = 60_000;

/** The environment of an API process for this test app's database, Temporal and task queue. */
export function apiEnv(t: TestApp, port: number, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...sharedProcessEnv(t),
    HOST: '127.0.0.1',
    PORT: String(port),
    ARENA_PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...extra,
  };
}

export class ApiProcess {
  private readonly child: ChildProcess;
  private text = '';
  readonly closed: Promise<number | null>;
  /** Resolves with the API's base URL once it listens. */
  readonly ready: Promise<string>;

  /** `entry`: Node's arguments; by default the compiled API's, as `npm run api` gives them. Await ensureBuilt() first. */
  constructor(env: NodeJS.ProcessEnv, entry: string[] = apiNodeArgs()) {
    assertBuilt();
    this.child = spawn(process.execPath, entry, { cwd: REPO, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (this.text += chunk));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.text += chunk));
    this.closed = new Promise((resolve) => this.child.once('close', (code) => resolve(code)));
    this.ready = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`API not ready after ${READY_MS} ms:\n${this.text.slice(-4000)}`)),
        READY_MS,
      );
      const onData = () => {
        const ready = READY_LINE.exec(this.text);
        if (!ready) return;
        clearTimeout(timer);
        resolve(ready[1]!);
      };
      this.child.stdout!.on('data', onData);
      void this.closed.then(() => {
        clearTimeout(timer);
        reject(new Error(`API exited before it was ready:\n${this.text.slice(-4000)}`));
      });
    });
    this.ready.catch(() => undefined);
  }

  get output(): string {
    return this.text;
  }

  /** A signal to the whole process group (SIGTERM: a graceful stop). */
  signal(signal: NodeJS.Signals): void {
    try {
      process.kill(-this.child.pid!, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }

  async stop(): Promise<number | null> {
    this.signal('SIGTERM');
    return this.closed;
  }
}
