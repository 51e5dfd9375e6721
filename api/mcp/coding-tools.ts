/**
 * A coding session's steps as MCP tools: exec, read_file, write_file, list_files and submit. Each
 * calls the service function its REST route calls (services/coding-steps.ts), so a tool call is a
 * step like any other: the same limits, counted against the session's steps, in its transcript,
 * stopped at its deadline. A refusal is a tool error whose text is the REST answer's `detail`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolResult, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ArenaError } from '../../domain/errors';
import type { CodingSessionRow } from '../../infra/db/repositories/coding.repository';
import type { CodingDeps } from '../../services/coding-sessions';
import {
  execInSession,
  MAX_WRITE_BYTES,
  readInSession,
  submitSession,
  writeInSession,
  type StepCall,
  type WorkspaceRead,
} from '../../services/coding-steps';
import { codingStepStart } from '../../infra/db/repositories/coding-step.repository';
import type { ErrorAnswer } from '../errors';
import { directoryListing, execBody, execResult, submitResult } from '../schemas/coding';

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface CodingToolsContext {
  em: EntityManager;
  coding: CodingDeps;
  /** The session the request's token names, as it was when the request arrived. */
  row: CodingSessionRow;
  /** How often a running step tells a client that asked for progress (a progressToken) that it still runs. */
  progressIntervalMs: number;
  /** Any failure as the API answers it; one that is no refusal (the database down) is logged there. */
  answerOf: (err: unknown) => ErrorAnswer;
}

/** The tools' own version: it changes when a tool's input or output does. */
const TOOLS_VERSION = '1.0.0';

const INSTRUCTIONS = `The tools work one Agent Arena coding session: a small repository in an isolated workspace.
Paths are relative to the workspace root. Each call is one step and counts against the session's steps.
Run the task's tests with exec, change files with write_file, and call submit when done: the hidden tests
then score the workspace and the session ends.`;

const path = z.string().describe('relative to the workspace root; no `..`, no absolute path');

const tools = {
  exec: {
    title: 'Run a command',
    description:
      "Runs a command in the session's workspace: a shell line (/bin/sh -c) or a program and its arguments. " +
      'No network; CPU, memory and processes are capped; stdout and stderr are each cut at 64 KiB. ' +
      'timeout_seconds is 1 to 120 (60 unless given); a command still running at the deadline is killed.',
    inputSchema: execBody,
    outputSchema: execResult,
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  },
  read_file: {
    title: 'Read a file',
    description: "Reads a workspace file's text (up to 1 MiB). Symbolic links are not followed.",
    inputSchema: z.object({ path }).strict(),
    outputSchema: z.object({ path: z.string(), content: z.string() }),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  write_file: {
    title: 'Write a file',
    description: `Creates or replaces a workspace file (and the folders it needs) with the text given, at most ${MAX_WRITE_BYTES} bytes.`,
    inputSchema: z.object({ path, content: z.string() }).strict(),
    outputSchema: z.object({ path: z.string(), bytes: z.number().int().describe('bytes written, as UTF-8') }),
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  },
  list_files: {
    title: 'List a folder',
    description:
      'Lists a workspace folder (the root unless path is given): up to 1,000 entries with their type and size.',
    inputSchema: z.object({ path: path.default('.') }).strict(),
    outputSchema: directoryListing,
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  submit: {
    title: 'Submit',
    description:
      'Ends the session: the hidden tests run on the workspace and the score comes back. No step is taken after it.',
    inputSchema: z.object({}).strict(),
    outputSchema: submitResult,
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
  },
} as const;

/** An MCP server whose tools are the steps of one coding session: a new one for every request. */
export function codingSessionServer(context: CodingToolsContext): McpServer {
  const { em, coding, row } = context;
  const server = new McpServer(
    { name: 'agent-arena-coding-session', version: TOOLS_VERSION },
    { instructions: INSTRUCTIONS },
  );
  const step = stepRunner(context);

  server.registerTool('exec', tools.exec, (args, extra) =>
    step(extra, 'exec', (call) => execInSession(em, coding, row, args, call)),
  );
  server.registerTool('read_file', tools.read_file, (args, extra) =>
    step(extra, 'read_file', async (call) => {
      const read = await readInSession(em, coding, row, args.path, call);
      if (read.type === 'dir') throw new ArenaError('invalid', `${read.path} is a folder: list it with list_files`);
      return { path: read.path, content: read.content };
    }),
  );
  server.registerTool('write_file', tools.write_file, (args, extra) =>
    step(extra, 'write_file', async (call) => {
      const written = await writeInSession(em, coding, row, args.path, args.content, call);
      return { path: written, bytes: Buffer.byteLength(args.content, 'utf8') };
    }),
  );
  server.registerTool('list_files', tools.list_files, (args, extra) =>
    step(extra, 'list_files', async (call) => listingOf(await readInSession(em, coding, row, args.path, call))),
  );
  server.registerTool('submit', tools.submit, (_args, extra) =>
    step(extra, 'submit', () => submitSession(em, coding.workflows, row)),
  );
  return server;
}

/** A listing of a file is the file alone, as `ls` and `arena-runner sandbox ls` give it. */
function listingOf(read: WorkspaceRead): z.infer<typeof directoryListing> {
  if (read.type === 'dir') return { path: read.path, entries: read.entries };
  return { path: read.path, entries: [{ name: read.path, type: 'file', size: Buffer.byteLength(read.content) }] };
}

/**
 * Runs a step as a tool call: its value as structured content and as JSON text, or its refusal as
 * a tool error. The step is the call's: a client that cancels the call (`notifications/cancelled`,
 * handled by the route) or drops its connection (the request's signal) cancels the step. While it
 * waits or runs, a client that sent a progressToken hears from it every interval, so one that resets
 * its timeout on progress waits out a long command or the hidden tests.
 */
function stepRunner({ em, progressIntervalMs, answerOf }: CodingToolsContext) {
  return async (extra: Extra, tool: string, run: (call: StepCall) => Promise<object>): Promise<CallToolResult> => {
    let stepId: number | undefined;
    const stop = reportProgress(extra, tool, progressIntervalMs, async () =>
      stepId === undefined ? undefined : codingStepStart(em, stepId),
    );
    try {
      const value = (await run({
        clientRef: clientRefOf(extra.requestId),
        signal: extra.signal,
        onAdmitted: (id) => (stepId = id),
      })) as Record<string, unknown>;
      return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
    } catch (err) {
      const { status, detail, headers } = answerOf(err);
      const retryAfter = Number(headers['Retry-After']);
      return {
        isError: true,
        content: [{ type: 'text', text: detail }],
        // What the REST step would have answered, for a client that branches on it.
        _meta: { http_status: status, ...(Number.isFinite(retryAfter) ? { retry_after_seconds: retryAfter } : {}) },
      };
    } finally {
      stop();
    }
  };
}

/** The name a step keeps of the MCP call that asked for it: a `notifications/cancelled` names the same. */
export function clientRefOf(requestId: string | number): string {
  return `mcp:${String(requestId)}`;
}

type StepStart = { startedAt: Date | null } | undefined;

/**
 * Sends `notifications/progress` every `everyMs` while a step waits or runs, if the call asked for
 * progress; returns the stop. The message tells time queued behind an earlier step of the session
 * from time running.
 */
function reportProgress(extra: Extra, tool: string, everyMs: number, startOf: () => Promise<StepStart>): () => void {
  const progressToken = extra._meta?.progressToken;
  if (progressToken === undefined) return () => undefined;
  const called = Date.now();
  const timer = setInterval(() => {
    void (async () => {
      // Seconds with their fraction: the value only ever grows, as the protocol wants.
      const seconds = (Date.now() - called) / 1000;
      const step = await startOf();
      const message = progressMessage(tool, called, step?.startedAt ?? null);
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken, progress: seconds, message },
      });
    })().catch(() => {
      // A client that went away misses it (its step is cancelled by then); a database that did not
      // answer costs one tick, not the call.
    });
  }, everyMs);
  return () => clearInterval(timer);
}

/** "exec queued for 12 s behind an earlier step of this session", "exec running for 75 s (queued 54 s first)". */
export function progressMessage(tool: string, called: number, startedAt: Date | null, now = Date.now()): string {
  if (startedAt === null)
    return `${tool} queued for ${Math.round((now - called) / 1000)} s behind an earlier step of this session`;
  const queued = Math.max(0, Math.round((startedAt.getTime() - called) / 1000));
  const running = Math.max(0, Math.round((now - startedAt.getTime()) / 1000));
  return `${tool} running for ${running} s${queued > 0 ? ` (queued ${queued} s first)` : ''}`;
}
