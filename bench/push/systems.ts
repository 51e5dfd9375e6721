/**
 * The delivery systems of the push figure: the arena through its API, the engine baseline, the
 * same-job baseline (the arena's job with plain parts) and the bare signed-POST loop.
 */
import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import { WebhookClient } from '../../infra/webhook/client';
import { wallNow } from '../lib/clock';
import { sessionCompletions } from '../lib/db';
import { sessionNumber, type ApiClient } from '../lib/api-client';
import { closeTimes, startEngineWorkflow, type EngineBaseline } from '../engine/engine';
import type { BenchStack } from '../stack/stack';
import type { Farm } from './farm';
import type { DeliverySystem } from './stages';

export const PROMPT = 'Benchmark prompt: answer with anything.';
export const PUSH_DEADLINE_SECONDS = 30;

export function arenaSystem(opts: {
  stack: BenchStack;
  api: ApiClient;
  key: string;
  agents: number[];
  farm: Farm;
  pool: Pool;
}): DeliverySystem {
  return {
    name: 'arena',
    async send(_stage, i) {
      const session = await opts.api.sandbox(
        opts.key,
        opts.agents[i % opts.agents.length]!,
        PROMPT,
        PUSH_DEADLINE_SECONDS,
      );
      return { key: session.id };
    },
    receivedAt: (key) => opts.farm.arrivals.get(key),
    async completed(keys, timeoutMs, onProgress) {
      const done = await sessionCompletions(opts.pool, keys.map(sessionNumber), timeoutMs, onProgress);
      return new Map(keys.filter((k) => done.has(sessionNumber(k))).map((k) => [k, done.get(sessionNumber(k))!]));
    },
    cpuRoots: () => ({ ...opts.stack.pids(), farm: opts.farm.child.pid }),
  };
}

export function engineSystem(opts: { stack: BenchStack; client: Client; engine: EngineBaseline }): DeliverySystem {
  return {
    name: 'engine',
    async send(stage, i) {
      const id = `engine-${stage}-${i}-${Date.now()}`;
      await startEngineWorkflow(opts.client, 'noopDelivery', id, [id]);
      return { key: id };
    },
    receivedAt: (key) => opts.engine.arrivals.get(key),
    async completed(keys, timeoutMs, onProgress) {
      const until = Date.now() + timeoutMs;
      // Wait for every activity first, so describing closed workflows does not compete with running ones.
      while (Date.now() < until && keys.some((k) => !opts.engine.arrivals.has(k))) {
        onProgress(keys.filter((k) => opts.engine.arrivals.has(k)).length);
        await new Promise((r) => setTimeout(r, 100));
      }
      return closeTimes(opts.client, keys, Math.max(5_000, until - Date.now()));
    },
    cpuRoots: () => ({ ...opts.stack.pids(), 'engine worker': opts.engine.child.pid }),
  };
}

/** The physical limit: the same signed POSTs through the service's own webhook client, from a plain loop. */
export function bareLoopSystem(opts: {
  stack: BenchStack;
  farm: Farm;
  urls: string[];
  secret: string;
}): DeliverySystem & { close(): Promise<void> } {
  const client = new WebhookClient({ allowPrivate: true });
  const done = new Map<string, number>();
  const body = JSON.stringify({
    prompt_id: 1,
    prompt: PROMPT,
    category: 'sandbox',
    deadline_seconds: PUSH_DEADLINE_SECONDS,
  });
  return {
    name: 'bare loop',
    async send(stage, i) {
      const key = `bare-${stage}-${i}`;
      const sentAt = wallNow();
      const result = await client.post({
        url: opts.urls[i % opts.urls.length]!,
        body,
        secret: opts.secret,
        deliveryId: key,
        timeoutMs: PUSH_DEADLINE_SECONDS * 1000,
      });
      if (result.kind !== 'response' || result.status !== 200)
        throw new Error(`bare POST failed: ${result.kind === 'failure' ? result.message : result.status}`);
      done.set(key, wallNow());
      // There is no accepting step in a bare loop: the request leaving is the start.
      return { key, acceptedAt: sentAt };
    },
    receivedAt: (key) => opts.farm.arrivals.get(key),
    async completed(keys) {
      return new Map(keys.filter((k) => done.has(k)).map((k) => [k, done.get(k)!]));
    },
    cpuRoots: () => ({ ...opts.stack.pids(), farm: opts.farm.child.pid }),
    close: () => client.close(),
  };
}

/**
 * (c) The same job with nothing of ours: a bare Fastify + pg API that writes the prompt and its row
 * and starts a workflow whose one activity signs, POSTs and records (`same-job-api.ts`, and
 * `sameJobPush` in the engine worker).
 */
export function sameJobSystem(opts: {
  stack: BenchStack;
  farm: Farm;
  urls: string[];
  apiUrl: string;
  apiPid: number;
  engine: EngineBaseline;
  pool: Pool;
}): DeliverySystem {
  return {
    name: 'same job',
    async send(_stage, i) {
      const res = await fetch(`${opts.apiUrl}/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: opts.urls[i % opts.urls.length], prompt: PROMPT }),
      });
      if (res.status !== 202) throw new Error(`same-job API answered ${res.status}: ${await res.text()}`);
      const { id } = (await res.json()) as { id: string };
      return { key: id };
    },
    receivedAt: (key) => opts.farm.arrivals.get(key),
    async completed(keys, timeoutMs, onProgress) {
      const numbers = keys.map((k) => Number(k.slice('same-'.length)));
      const done = await sessionCompletions(opts.pool, numbers, timeoutMs, onProgress, 'same_job_deliveries');
      const out = new Map<string, number>();
      keys.forEach((key, i) => {
        const at = done.get(numbers[i]!);
        if (at !== undefined) out.set(key, at);
      });
      return out;
    },
    cpuRoots: () => ({
      ...opts.stack.pids(),
      'same-job api': opts.apiPid,
      'engine worker': opts.engine.child.pid,
      farm: opts.farm.child.pid,
    }),
  };
}
