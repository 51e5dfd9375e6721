/**
 * Figure 9, protocols: what joining through A2A costs against push, one delivery at a time on an
 * idle stack. Three agents on loopback: a push webhook, an A2A agent that answers with a message,
 * and one that answers with a task (completed at once, so the arena's first GetTask finds it done).
 * Each takes the same sandbox prompts one after another; the figure is the time from the request
 * to the recorded outcome, and the engine's billable actions per delivery read from the histories,
 * each against the push delivery's in the same run. Then a coding session's `exec` step, taken
 * alternately over REST and as an MCP tool call (the SDK's client, one POST to `/mcp` a call), the
 * MCP round trip against the REST one.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { temporal } from '@temporalio/proto';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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
import { openSession } from '../sandbox/coding-session';
import { STEP_COMMAND } from '../sandbox/step-command';

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
  /** One coding session's exec steps, ms from request to result. */
  steps: { rest: Summary; mcp: Summary };
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

async function timed(call: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await call();
  return performance.now() - started;
}

/** Steps of one session, REST and MCP in turn, so the machine's drift falls on both alike. */
async function measureSteps(ctx: Ctx, n: number): Promise<{ rest: Summary; mcp: Summary }> {
  const { apiKey } = await ctx.api.register();
  const session = await openSession(ctx.api, apiKey);
  const mcp = new McpClient({ name: 'arena-bench', version: '1' });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL('/mcp', ctx.stack.apiUrl), {
      requestInit: { headers: { authorization: `Bearer ${session.token}` } },
    }),
  );
  const rest: number[] = [];
  const viaMcp: number[] = [];
  try {
    for (let i = 0; i < WARM_UP + n; i++) {
      const r = await timed(async () => {
        const { body } = await ctx.api.request<{ exit_code: number }>('POST', `${session.api}/exec`, {
          key: session.token,
          body: { command: STEP_COMMAND },
        });
        if (body.exit_code !== 0) throw new Error(`a REST step exited ${body.exit_code}`);
      });
      const m = await timed(async () => {
        const result = await mcp.callTool({ name: 'exec', arguments: { command: STEP_COMMAND } });
        if (result.isError) throw new Error(`an MCP step was refused: ${JSON.stringify(result.content)}`);
      });
      if (i < WARM_UP) continue;
      rest.push(r);
      viaMcp.push(m);
    }
  } finally {
    await mcp.close();
  }
  const steps = { rest: summarize(rest), mcp: summarize(viaMcp) };
  ctx.progress.log(`protocols: exec step p50 REST ${steps.rest.p50.toFixed(1)} ms, MCP ${steps.mcp.p50.toFixed(1)} ms`);
  return steps;
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
    const steps = await measureSteps(ctx, ctx.profile.protocols.steps);
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
    figures.push(
      figure({
        group: 'Protocols',
        name: "a coding session's exec step, request to result, p50 (as an MCP tool call)",
        unit: 'ms',
        value: steps.mcp.p50,
        baselineName: 'the same step over REST',
        baseline: steps.rest.p50,
        better: 'lower',
        note: `p95 ${steps.mcp.p95.toFixed(1)} ms against ${steps.rest.p95.toFixed(1)}`,
      }),
    );
    return { push, a2a, steps, figures };
  } finally {
    await Promise.all([webhook.close(), ...peers.map((p) => p[2]?.close())]);
  }
}
