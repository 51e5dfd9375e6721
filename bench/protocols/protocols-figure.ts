/**
 * Figure 10, protocols: what joining through A2A costs against push, one delivery at a time on an
 * idle stack. Three agents on loopback: a push webhook, an A2A agent that answers with a message,
 * and one that answers with a task (completed at once, so the arena's first GetTask finds it done).
 * Each takes the same sandbox prompts one after another; the figure is the time from the request
 * to the recorded outcome, and the engine's billable actions per delivery read from the histories,
 * each against the push delivery's in the same run.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { temporal } from '@temporalio/proto';
import { startA2aAgent, type A2aAgent, type A2aBehaviour } from '../../test/support/a2a-agents';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { executionCost } from '../engine/billable-actions';
import type { BenchProfile } from '../config';
import type { ApiClient } from '../lib/api-client';
import { sessionNumber } from '../lib/api-client';
import { summarize, type Summary } from '../lib/stats';
import { figure, type FigureRow } from '../report/model';
import type { Progress } from '../report/progress';
import type { BenchStack } from '../stack/stack';

const EVENT_TYPE_NAMES = temporal.api.enums.v1.EventType as unknown as Record<number, string>;
/** Deliveries before the measured ones: connections opened, code paths warmed. */
const WARM_UP = 3;

export interface ProtocolRun {
  name: string;
  /** From the sandbox request to the outcome recorded (the workflow's result), ms. */
  endToEnd: Summary;
  /** Billable actions and history events of the median delivery. */
  actions: number;
  events: number;
}

export interface ProtocolsResult {
  push: ProtocolRun;
  a2a: ProtocolRun[];
  figures: FigureRow[];
}

interface Ctx {
  stack: BenchStack;
  api: ApiClient;
  profile: BenchProfile;
  progress: Progress;
}

/** A push webhook that answers at once. */
async function startWebhook(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"response":"ok"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Registers an agent on an account of its own (pings are limited per account) and waits out its gym. */
async function joined(ctx: Ctx, payload: Record<string, unknown>): Promise<{ id: number; key: string }> {
  const { apiKey } = await ctx.api.register();
  const { body } = await ctx.api.request<{ id: number; active: boolean; ping_error: string | null }>(
    'POST',
    '/api/agents',
    { key: apiKey, body: { name: `bench-${String(payload.mode)}`, ...payload } },
  );
  if (!body.active) throw new Error(`the ${String(payload.mode)} agent is not active: ${body.ping_error}`);
  await ctx.stack.temporal.workflow.getHandle(`gym-${body.id}-1`).result();
  return { id: body.id, key: apiKey };
}

async function measure(ctx: Ctx, name: string, agent: { id: number; key: string }, n: number): Promise<ProtocolRun> {
  const times: number[] = [];
  const workflowIds: string[] = [];
  for (let i = 0; i < WARM_UP + n; i++) {
    const started = performance.now();
    const session = await ctx.api.sandbox(agent.key, agent.id, `What is ${i} + ${i}?`, 30);
    const workflowId = deliveryWorkflowId(sessionNumber(session.id));
    const outcome = await ctx.stack.temporal.workflow.getHandle(workflowId).result();
    if (outcome.status !== 'answered') throw new Error(`a ${name} delivery ended ${outcome.status}`);
    if (i < WARM_UP) continue;
    times.push(performance.now() - started);
    workflowIds.push(workflowId);
  }
  const costs = [];
  for (const id of workflowIds.slice(0, 10)) {
    const history = await ctx.stack.temporal.workflow.getHandle(id).fetchHistory();
    costs.push(executionCost(history.events ?? [], EVENT_TYPE_NAMES));
  }
  costs.sort((a, b) => a.actions - b.actions || a.events - b.events);
  const median = costs[Math.floor((costs.length - 1) / 2)]!;
  const run = { name, endToEnd: summarize(times), actions: median.actions, events: median.events };
  ctx.progress.log(
    `protocols: ${name}: p50 ${run.endToEnd.p50.toFixed(1)} ms, p95 ${run.endToEnd.p95.toFixed(1)} ms; ${run.actions} actions, ${run.events} events`,
  );
  return run;
}

export async function runProtocolsFigure(ctx: Ctx): Promise<ProtocolsResult> {
  const n = ctx.profile.protocols.deliveries;
  const webhook = await startWebhook();
  const peers: Array<[string, A2aBehaviour, A2aAgent?]> = [
    ['a2a, answered by a message', { reply: 'message' }],
    ['a2a, answered by a task', { reply: 'task', afterMs: 0 }],
  ];
  try {
    ctx.progress.log(`protocols: ${n} deliveries one at a time to a push agent and to two A2A agents`);
    const push = await measure(ctx, 'push', await joined(ctx, { mode: 'push', webhook_url: webhook.url }), n);
    const a2a: ProtocolRun[] = [];
    for (const peer of peers) {
      peer[2] = await startA2aAgent({ behaviour: peer[1] });
      a2a.push(await measure(ctx, peer[0], await joined(ctx, { mode: 'a2a', agent_card_url: peer[2].cardUrl }), n));
    }
    const figures = a2a.flatMap((run) => [
      figure({
        group: 'Protocols',
        name: `delivery, request to recorded outcome, p50 (${run.name})`,
        unit: 'ms',
        value: run.endToEnd.p50,
        baselineName: 'a push delivery',
        baseline: push.endToEnd.p50,
        better: 'lower',
        note: `p95 ${run.endToEnd.p95.toFixed(1)} ms against ${push.endToEnd.p95.toFixed(1)}`,
      }),
      figure({
        group: 'Protocols',
        name: `billable actions per delivery (${run.name})`,
        unit: '',
        value: run.actions,
        baselineName: 'a push delivery',
        baseline: push.actions,
        better: 'lower',
        note: `${run.events} history events against ${push.events}`,
      }),
    ]);
    return { push, a2a, figures };
  } finally {
    await Promise.all([webhook.close(), ...peers.map((p) => p[2]?.close())]);
  }
}
