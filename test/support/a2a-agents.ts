/**
 * Real A2A agents on loopback, built on the official SDK's own servers: A2A 1.0 (`@a2a-js/sdk` 1.x)
 * or 0.3 only (the 0.3 SDK, installed as `a2a-sdk-v03`). Each answers with a message at once, with
 * a task that completes later, or with a task that never completes; each records what it was sent.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { Role, TaskState, type AgentCard, type Message, type Part } from '@a2a-js/sdk';
import * as v03 from 'a2a-sdk-v03/server';
import * as v03Express from 'a2a-sdk-v03/server/express';

export type A2aBehaviour =
  /** Answers with a message in the reply to SendMessage. */
  | { reply: 'message' }
  /** Answers with a working task, completed with an artifact after `afterMs`. */
  | { reply: 'task'; afterMs: number }
  /** A working task that never ends until it is cancelled. */
  | { reply: 'never' }
  /** A task that fails at once, saying why. */
  | { reply: 'fail'; reason: string }
  /** A task that stops at once to ask for more input (A2A 1.0 only). */
  | { reply: 'input' };

export interface A2aAgentOptions {
  behaviour: A2aBehaviour;
  /** The protocol the agent speaks; a 0.3 agent's card and server know nothing of 1.0. */
  version?: '1.0' | '0.3';
  /**
   * What the agent answers to a prompt's text and the message's metadata (a coding prompt's
   * `sandbox` among it); by default it echoes the text. A task completes once this has answered.
   */
  answer?: (prompt: string, metadata: Record<string, unknown>) => string | Promise<string>;
}

export interface ReceivedCall {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The exact body bytes, for signature checks. */
  body: Buffer;
  /** The JSON-RPC method, where the body is one. */
  rpcMethod?: string;
  params?: Record<string, unknown>;
}

export interface A2aAgent {
  /** The agent card's URL, as an owner gives it to the arena. */
  cardUrl: string;
  baseUrl: string;
  calls: ReceivedCall[];
  /** Task ids the arena cancelled. */
  cancelled: string[];
  close(): Promise<void>;
}

export async function startA2aAgent(options: A2aAgentOptions): Promise<A2aAgent> {
  const calls: ReceivedCall[] = [];
  const cancelled: string[] = [];
  const app = express();
  // Records every call with its exact bytes, then hands the parsed body on to the SDK's handler.
  app.use(express.raw({ type: () => true, limit: '2mb' }), (req, _res, next) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    let parsed: { method?: string; params?: Record<string, unknown> } | undefined;
    try {
      parsed = body.length > 0 ? (JSON.parse(body.toString('utf8')) as typeof parsed) : undefined;
    } catch {
      parsed = undefined;
    }
    calls.push({
      method: req.method,
      path: req.path,
      headers: req.headers,
      body,
      rpcMethod: parsed?.method,
      params: parsed?.params,
    });
    req.body = parsed;
    next();
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const answer = options.answer ?? ((prompt: string) => `echo: ${prompt}`);
  if ((options.version ?? '1.0') === '1.0') mountV1(app, baseUrl, options.behaviour, answer, cancelled);
  else mountV03(app, baseUrl, options.behaviour, answer, cancelled);
  return {
    cardUrl: `${baseUrl}/.well-known/agent-card.json`,
    baseUrl,
    calls,
    cancelled,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(text: string, taskId = '', contextId = ''): Message {
  return {
    messageId: `m-${Math.random().toString(36).slice(2)}`,
    contextId,
    taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function promptText(parts: Part[]): string {
  return parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
}

type Answer = NonNullable<A2aAgentOptions['answer']>;

function mountV1(
  app: express.Express,
  baseUrl: string,
  behaviour: A2aBehaviour,
  answer: Answer,
  cancelled: string[],
): void {
  const card: AgentCard = {
    name: 'Loopback A2A agent',
    description: 'answers arena prompts in tests',
    supportedInterfaces: [
      { url: `${baseUrl}/a2a/jsonrpc`, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' },
    ],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  };
  const stops = new Map<string, () => void>();
  const executor: AgentExecutor = {
    async execute(context, bus) {
      const working = Promise.resolve(
        answer(promptText(context.userMessage.parts), context.userMessage.metadata ?? {}),
      );
      if (behaviour.reply === 'message') {
        bus.publish(AgentEvent.message(agentMessage(await working, '', context.contextId)));
        bus.finished();
        return;
      }
      const task = (state: TaskState, message?: string) => ({
        id: context.taskId,
        contextId: context.contextId,
        status: {
          state,
          message: message ? agentMessage(message, context.taskId, context.contextId) : undefined,
          timestamp: new Date().toISOString(),
        },
        artifacts: [],
        history: [],
        metadata: undefined,
      });
      if (behaviour.reply === 'fail' || behaviour.reply === 'input') {
        bus.publish(
          AgentEvent.task(
            behaviour.reply === 'fail'
              ? task(TaskState.TASK_STATE_FAILED, behaviour.reason)
              : task(TaskState.TASK_STATE_INPUT_REQUIRED, 'which year?'),
          ),
        );
        bus.finished();
        return;
      }
      bus.publish(AgentEvent.task(task(TaskState.TASK_STATE_WORKING)));
      const ended = await new Promise<'done' | 'cancelled'>((resolve) => {
        stops.set(context.taskId, () => resolve('cancelled'));
        if (behaviour.reply === 'task')
          void Promise.all([working, new Promise((r) => setTimeout(r, behaviour.afterMs))]).then(() => resolve('done'));
      });
      stops.delete(context.taskId);
      if (ended === 'done') {
        const text = await working;
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId: context.taskId,
            contextId: context.contextId,
            artifact: {
              artifactId: 'answer',
              name: 'answer',
              description: '',
              parts: [textPart(text)],
              metadata: undefined,
              extensions: [],
            },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
      }
      bus.publish(
        AgentEvent.statusUpdate({
          taskId: context.taskId,
          contextId: context.contextId,
          status: {
            state: ended === 'done' ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_CANCELED,
            message: undefined,
            timestamp: new Date().toISOString(),
          },
          metadata: undefined,
        }),
      );
      bus.finished();
    },
    async cancelTask(taskId) {
      cancelled.push(taskId);
      stops.get(taskId)?.();
    },
  };
  const handler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: handler }));
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
}

function mountV03(
  app: express.Express,
  baseUrl: string,
  behaviour: A2aBehaviour,
  answer: Answer,
  cancelled: string[],
): void {
  const card = {
    name: 'Loopback A2A 0.3 agent',
    description: 'answers arena prompts in tests, in A2A 0.3 only',
    url: `${baseUrl}/a2a/jsonrpc`,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3.0',
    version: '1.0.0',
    capabilities: { streaming: false, pushNotifications: false },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
  };
  const stops = new Map<string, () => void>();
  const executor: v03.AgentExecutor = {
    async execute(context, bus) {
      const prompt = context.userMessage.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
      const text = await answer(prompt, context.userMessage.metadata ?? {});
      const message = (t: string) => ({
        kind: 'message' as const,
        messageId: `m-${Math.random().toString(36).slice(2)}`,
        role: 'agent' as const,
        parts: [{ kind: 'text' as const, text: t }],
        taskId: context.taskId,
        contextId: context.contextId,
      });
      if (behaviour.reply === 'message') {
        bus.publish({ ...message(text), taskId: undefined });
        bus.finished();
        return;
      }
      const status = (state: 'working' | 'completed' | 'canceled' | 'failed', said?: string) => ({
        state,
        timestamp: new Date().toISOString(),
        ...(said ? { message: message(said) } : {}),
      });
      if (behaviour.reply === 'fail') {
        bus.publish({
          kind: 'task',
          id: context.taskId,
          contextId: context.contextId,
          status: status('failed', behaviour.reason),
        });
        bus.finished();
        return;
      }
      bus.publish({ kind: 'task', id: context.taskId, contextId: context.contextId, status: status('working') });
      const ended = await new Promise<'done' | 'cancelled'>((resolve) => {
        stops.set(context.taskId, () => resolve('cancelled'));
        if (behaviour.reply === 'task') setTimeout(() => resolve('done'), behaviour.afterMs);
      });
      stops.delete(context.taskId);
      if (ended === 'done') {
        bus.publish({
          kind: 'artifact-update',
          taskId: context.taskId,
          contextId: context.contextId,
          artifact: { artifactId: 'answer', parts: [{ kind: 'text', text }] },
        });
      }
      bus.publish({
        kind: 'status-update',
        taskId: context.taskId,
        contextId: context.contextId,
        status: status(ended === 'done' ? 'completed' : 'canceled'),
        final: true,
      });
      bus.finished();
    },
    async cancelTask(taskId) {
      cancelled.push(taskId);
      stops.get(taskId)?.();
    },
  };
  const handler = new v03.DefaultRequestHandler(card as never, new v03.InMemoryTaskStore(), executor);
  app.use('/.well-known/agent-card.json', v03Express.agentCardHandler({ agentCardProvider: handler }));
  app.use(
    '/a2a/jsonrpc',
    v03Express.jsonRpcHandler({ requestHandler: handler, userBuilder: v03Express.UserBuilder.noAuthentication }),
  );
}
