/**
 * CPU profiles of a window of time in a running child process, through the inspector protocol
 * (the child runs with --inspect=127.0.0.1:0), so a profile shows one stage of load and not the
 * process's start-up. Worker threads (the Temporal worker runs workflows in one) are profiled
 * too, through the NodeWorker domain.
 */
import fs from 'node:fs/promises';
import { WebSocket } from 'undici';
import { waitFor } from '../lib/clock';
import type { CpuProfile } from './cpu-profile';

export interface InspectorSession {
  start(): Promise<void>;
  /** One profile per thread: `main`, then `thread <n>` for each worker thread. */
  stop(): Promise<Record<string, CpuProfile>>;
  close(): void;
}

/** The child prints `Debugger listening on ws://...` to its log when it starts. */
async function debuggerUrl(logFile: string, pid: number): Promise<string> {
  let url: string | undefined;
  await waitFor(
    async () => {
      const text = await fs.readFile(logFile, 'utf8').catch(() => '');
      // The log is appended to by every process of that name: take the last address printed.
      url = [...text.matchAll(/Debugger listening on (ws:\/\/\S+)/g)].at(-1)?.[1];
      return url !== undefined;
    },
    `the inspector address of process ${pid} in ${logFile}`,
    30_000,
  );
  return url!;
}

type Send = (method: string, params?: Record<string, unknown>) => Promise<unknown>;

interface Message {
  id?: number;
  method?: string;
  params?: { sessionId?: string; message?: string; workerInfo?: { title?: string } };
  result?: unknown;
}

export async function connectInspector(logFile: string, pid: number): Promise<InspectorSession> {
  const ws = new WebSocket(await debuggerUrl(logFile, pid));
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve(), { once: true });
    ws.addEventListener('error', () => reject(new Error(`could not reach the inspector of process ${pid}`)), {
      once: true,
    });
  });
  let nextId = 1;
  const pending = new Map<number, (result: unknown) => void>();
  const threads = new Map<string, Send>();
  const settle = (msg: Message) => {
    if (msg.id === undefined) return;
    pending.get(msg.id)?.(msg.result);
    pending.delete(msg.id);
  };
  const request =
    (write: (text: string) => void): Send =>
    (method, params = {}) =>
      new Promise((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        write(JSON.stringify({ id, method, params }));
      });
  const main = request((text) => ws.send(text));
  ws.addEventListener('message', (event) => {
    const msg = JSON.parse(String(event.data)) as Message;
    if (msg.method === 'NodeWorker.attachedToWorker' && msg.params?.sessionId) {
      const sessionId = msg.params.sessionId;
      threads.set(
        sessionId,
        request((message) => void main('NodeWorker.sendMessageToWorker', { sessionId, message })),
      );
    } else if (msg.method === 'NodeWorker.receivedMessageFromWorker' && msg.params?.message) {
      settle(JSON.parse(msg.params.message) as Message);
    } else {
      settle(msg);
    }
  });
  await main('NodeWorker.enable', { waitForDebuggerOnStart: false });
  await new Promise((r) => setTimeout(r, 200)); // attach events for threads already running
  const all = () => [
    ['main', main] as const,
    ...[...threads.values()].map((send, i) => [`thread ${i + 1}`, send] as const),
  ];
  for (const [, send] of all()) {
    await send('Profiler.enable');
    // 1 ms sampling: enough detail for per-function shares, little overhead.
    await send('Profiler.setSamplingInterval', { interval: 1000 });
  }
  return {
    async start() {
      for (const [, send] of all()) await send('Profiler.start');
    },
    async stop() {
      const out: Record<string, CpuProfile> = {};
      for (const [name, send] of all()) out[name] = ((await send('Profiler.stop')) as { profile: CpuProfile }).profile;
      return out;
    },
    close: () => ws.close(),
  };
}
