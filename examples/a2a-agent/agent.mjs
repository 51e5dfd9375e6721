#!/usr/bin/env node
// An example A2A agent for the arena: it serves its agent card, refuses every call that does not come
// from the arena (the agent secret as a bearer token, and the HMAC of the exact body), and answers
// each prompt with a message, or through a task.
//
// Configuration, from the environment:
//   ARENA_AGENT_SECRET  the agent's webhook_secret, shown once when the agent was created (required)
//   PORT                the port it listens on (8000)
//   PUBLIC_URL          the base URL its card advertises (http://127.0.0.1:<PORT>)
//   ANSWER_COMMAND      a shell command that reads the prompt on stdin and prints the answer;
//                       without it, a few fixed rules answer (enough for the gym)
//   ANSWER_AS_TASK=1    answer through a task (working, then the answer as an artifact, completed)
// It needs Node.js 20 or later, @a2a-js/sdk 1.x and express 5.
import { spawn } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import express from 'express';
import { Role, TaskState } from '@a2a-js/sdk';
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express';

const SECRET = process.env.ARENA_AGENT_SECRET ?? '';
const PORT = Number(process.env.PORT || 8000);
const PUBLIC_URL = (process.env.PUBLIC_URL || `http://127.0.0.1:${PORT}`).replace(/\/+$/, '');
const ANSWER_COMMAND = process.env.ANSWER_COMMAND || '';
const AS_TASK = process.env.ANSWER_AS_TASK === '1';
const RPC_PATH = '/a2a/jsonrpc';

/** Answers one prompt; `signal` aborts at the deadline or when the arena cancels the task. */
async function answer(prompt, metadata, signal) {
  if (ANSWER_COMMAND) return runCommand(prompt, signal);
  if (metadata.category === 'ping') return 'pong';
  const word = /single word:\s*(\S+)/i.exec(prompt);
  if (word) return word[1];
  const sum = /What is (-?\d+(?:\.\d+)?)\s*([-+*/x×])\s*(-?\d+(?:\.\d+)?)\s*\?/i.exec(prompt);
  if (sum) return String(arithmetic(Number(sum[1]), sum[2], Number(sum[3])));
  const repeat = /Repeat this text exactly:\s?([\s\S]*)$/.exec(prompt);
  if (repeat) return repeat[1];
  if (/JSON object/i.test(prompt)) return '{"ok": true}';
  if (/How many lines came before/i.test(prompt)) return String(prompt.trimEnd().split('\n').length - 1);
  return 'This example agent knows only a few fixed prompts; set ANSWER_COMMAND to answer the others.';
}

function arithmetic(a, op, b) {
  if (op === '+') return a + b;
  if (op === '-') return a - b;
  if (op === '/') return a / b;
  return a * b;
}

/** Runs ANSWER_COMMAND with the prompt on stdin; its trimmed stdout is the answer. */
function runCommand(prompt, signal) {
  return new Promise((resolve, reject) => {
    // The command never sees the agent secret: a prompt could talk a model into printing it.
    const env = { ...process.env };
    delete env.ARENA_AGENT_SECRET;
    // A process group of its own, so a cancel or the deadline stops the shell and all it started.
    const child = spawn(ANSWER_COMMAND, { shell: true, env, detached: true, stdio: ['pipe', 'pipe', 'inherit'] });
    const stop = () => {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // it has ended already
      }
    };
    signal.addEventListener('abort', stop, { once: true });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (out += chunk));
    child.stdin.on('error', () => undefined); // a command that does not read its stdin
    child.stdin.end(prompt);
    child.on('error', reject);
    child.on('close', (code) => {
      signal.removeEventListener('abort', stop);
      if (code === 0 && out.trim() !== '') resolve(out.trim());
      else if (signal.aborted) reject(new Error('stopped: cancelled or past the deadline'));
      else
        reject(
          new Error(code === 0 ? 'ANSWER_COMMAND printed nothing' : `ANSWER_COMMAND exited with ${code ?? 'a signal'}`),
        );
    });
  });
}

function textPart(text) {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function agentMessage(text, taskId, contextId) {
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

/** Each task's stop switch, for CancelTask. */
const running = new Map();

const executor = {
  async execute(context, bus) {
    const { userMessage, taskId, contextId } = context;
    const prompt = userMessage.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('');
    const metadata = userMessage.metadata ?? {};
    // The message's id is the arena's delivery id (gym-12, main-40, ping-1, ...).
    const delivery = userMessage.messageId;
    const status = (state, said) => ({
      state,
      message: said === undefined ? undefined : agentMessage(said, taskId, contextId),
      timestamp: new Date().toISOString(),
    });
    const task = (state, said) =>
      AgentEvent.task({
        id: taskId,
        contextId,
        status: status(state, said),
        artifacts: [],
        history: [],
        metadata: undefined,
      });
    const update = (state, said) =>
      AgentEvent.statusUpdate({ taskId, contextId, status: status(state, said), metadata: undefined });
    const stop = new AbortController();
    running.set(taskId, stop);
    const deadline = AbortSignal.timeout(Number(metadata.deadline_seconds || 300) * 1000);
    try {
      // Long work is a task: the arena has it at once, and asks after it until it ends.
      if (AS_TASK) bus.publish(task(TaskState.TASK_STATE_WORKING));
      const text = await answer(prompt, metadata, AbortSignal.any([stop.signal, deadline]));
      if (AS_TASK) {
        const artifact = { artifactId: 'answer', name: 'answer', description: '', parts: [textPart(text)] };
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId,
            contextId,
            artifact: { ...artifact, metadata: undefined, extensions: [] },
            append: false,
            lastChunk: true,
            metadata: undefined,
          }),
        );
        bus.publish(update(TaskState.TASK_STATE_COMPLETED));
      } else {
        bus.publish(AgentEvent.message(agentMessage(text, '', contextId)));
      }
      console.error(`${delivery}: answered ${AS_TASK ? `through task ${taskId}` : 'with a message'}`);
    } catch (err) {
      // A failed task is the agent's error, with its status message as the reason.
      const cancelled = stop.signal.aborted;
      const reason = cancelled ? 'cancelled by the caller' : err.message;
      const state = cancelled ? TaskState.TASK_STATE_CANCELED : TaskState.TASK_STATE_FAILED;
      bus.publish(AS_TASK ? update(state, reason) : task(state, reason));
      console.error(`${delivery}: ${cancelled ? 'cancelled' : `failed: ${reason}`}`);
    } finally {
      running.delete(taskId);
      bus.finished();
    }
  },
  async cancelTask(taskId) {
    running.get(taskId)?.abort();
  },
};

// One JSON-RPC endpoint, declared for A2A 1.0 and for 0.3: the SDK's compatibility layer serves 0.3 callers.
const jsonRpc = (protocolVersion) => ({
  url: `${PUBLIC_URL}${RPC_PATH}`,
  protocolBinding: 'JSONRPC',
  tenant: '',
  protocolVersion,
});
const card = {
  name: 'Arena example agent',
  description: 'Answers arena prompts: a few fixed ones by rule, or any through ANSWER_COMMAND.',
  supportedInterfaces: [jsonRpc('1.0'), jsonRpc('0.3')],
  provider: undefined,
  version: '1.0.0',
  capabilities: { streaming: false, pushNotifications: false, extensions: [] },
  securitySchemes: {},
  securityRequirements: [],
  defaultInputModes: ['text/plain'],
  defaultOutputModes: ['text/plain'],
  skills: [
    {
      id: 'answer',
      name: 'Answer a prompt',
      description: 'Answers one text prompt with text.',
      tags: ['arena'],
      examples: ['What is 17 + 25? Answer with the number only.'],
      inputModes: ['text/plain'],
      outputModes: ['text/plain'],
      securityRequirements: [],
    },
  ],
  signatures: [],
};

/** True when both strings are the same, in a time that does not tell how much of them matched. */
function same(given, expected) {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** A call from the arena carries the agent secret as its bearer token and the HMAC of its exact bytes. */
function fromArena(req, body) {
  const signature = createHmac('sha256', SECRET).update(body).digest('hex');
  return (
    same(req.get('authorization') ?? '', `Bearer ${SECRET}`) && same(req.get('x-arena-signature') ?? '', signature)
  );
}

if (!SECRET) {
  console.error('Set ARENA_AGENT_SECRET to the webhook_secret the arena showed when the agent was created.');
  process.exit(64);
}
const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), executor);
const app = express();
// The card is public: it carries no secret, and the arena reads it unsigned.
app.use(
  '/.well-known/agent-card.json',
  agentCardHandler({ agentCardProvider: requestHandler, legacyCompat: { enabled: true } }),
);
app.use(
  RPC_PATH,
  // The signature is over the raw bytes: read them, check them, then hand the parsed body to the SDK.
  express.raw({ type: () => true, limit: '2mb' }),
  (req, res, next) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (!fromArena(req, body)) {
      console.error(`refused a call to ${RPC_PATH}: no valid Authorization or X-Arena-Signature`);
      res.status(401).json({ error: 'not signed with this agent secret' });
      return;
    }
    try {
      req.body = JSON.parse(body.toString('utf8'));
    } catch {
      res.status(400).json({ error: 'the body is not JSON' });
      return;
    }
    next();
  },
  jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication, legacyCompat: { enabled: true } }),
);
app.listen(PORT, (err) => {
  if (err) throw err;
  console.error(`listening on port ${PORT}; agent card at ${PUBLIC_URL}/.well-known/agent-card.json`);
});
