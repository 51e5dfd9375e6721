/**
 * The worker as its own process (the compiled `npm run worker`, from this run's build), on a test
 * app's database and task queue: for crash, shutdown, metrics and build tests. Compiled, it starts in
 * a second or two; under tsx it compiled the server's sources again at every start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { sharedProcessEnv, type TestApp } from './test-app';
import { assertBuilt } from './build';

const REPO = path.resolve(__dirname, '..', '..');
const READY_LINE = /worker polling task queue \S+ on \S+; metrics at (\S+)/;
/** Loading the server's modules takes seconds, more on a busy two-core machine. */
const WORKER_READY_MS = 120_000;

/** The environment of a worker process for this test app; the arena's schedules stay out of the way. */
export function workerEnv(t: TestApp, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...sharedProcessEnv(t),
    ARENA_GYM_RETRY_SECONDS: '1',
    ARENA_DISPATCH_INTERVAL: '86400',
    ARENA_LEADERBOARD_INTERVAL: '86400',
    // Any free port: several worker processes may run at once.
    ARENA_WORKER_METRICS_PORT: '0',
    // A killed worker's workflows wait this long on its sticky queue before another worker takes them.
    ARENA_STICKY_QUEUE_SECONDS: '2',
    // The run's bundle (global-setup.ts): a worker from the sources would otherwise bundle as it starts.
    ...(process.env.TEST_WORKFLOW_BUNDLE ? { ARENA_WORKFLOW_BUNDLE: process.env.TEST_WORKFLOW_BUNDLE } : {}),
    ...extra,
  };
}

/** `node dist/worker/main.js` (or another entry) in its own process group; await ensureBuilt() first. */
export class WorkerProcess {
  private readonly child: ChildProcess;
  private text = '';
  private exited = false;
  readonly closed: Promise<void>;
  /** Resolves with the worker's metrics URL once it polls. */
  readonly ready: Promise<string>;

  /** `entry`: Node's arguments; by default the compiled worker's, as `npm run worker` gives them. */
  constructor(env: NodeJS.ProcessEnv, entry: string[] = ['dist/worker/main.js']) {
    assertBuilt();
    this.child = spawn(process.execPath, entry, {
      cwd: REPO,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Both streams are always read, so a chatty worker never blocks on a full pipe.
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (this.text += chunk));
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.text += chunk));
    // `close` comes once every process holding the pipes is gone; `error` when it could not start.
    this.closed = new Promise((resolve) => {
      const gone = () => ((this.exited = true), resolve());
      this.child.once('close', gone);
      this.child.once('error', (err) => ((this.text += `\n${err.message}`), gone()));
    });
    this.ready = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker not ready after ${WORKER_READY_MS} ms:\n${this.tail()}`)),
        WORKER_READY_MS,
      );
      const onData = () => {
        const ready = READY_LINE.exec(this.text);
        if (!ready) return;
        clearTimeout(timer);
        this.child.stdout!.off('data', onData);
        resolve(ready[1]!);
      };
      this.child.stdout!.on('data', onData);
      void this.closed.then(() => {
        clearTimeout(timer);
        reject(new Error(`worker exited before it was ready:\n${this.tail()}`));
      });
    });
    this.ready.catch(() => undefined); // awaited by the caller; never an unhandled rejection
  }

  /** Everything the worker printed so far. */
  get output(): string {
    return this.text;
  }

  /** SIGKILL to the whole process group: no shutdown, no clean-up, as in a crash. */
  async kill(): Promise<void> {
    this.signal('SIGKILL');
    await this.closed;
  }

  /** Sends a signal to the whole process group (SIGTERM: a graceful stop). */
  signal(signal: NodeJS.Signals): void {
    if (this.exited) return;
    try {
      process.kill(-this.child.pid!, signal);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
    }
  }

  private tail(): string {
    return this.text.slice(-4000);
  }
}
