/**
 * Coding-session test helpers: an app with its worker, an owner and a pull agent, workspaces in a
 * scratch folder of their own; taking a session's work item as a runner does, and steps as its agent.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@temporalio/client';
import { deliveryJson } from '../../api/json/agents';
import { codingDepsOf, startCodingTask } from '../../services/coding-sessions';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { removeSandboxDir } from './support';

export { removeSandboxDir } from './support';

export interface CodingArena {
  t: TestApp;
  owner: Registered;
  agent: { id: number; webhook_secret: string };
  /** ARENA_SANDBOX_DIR: where this app's worker keeps its workspaces. */
  sandboxDir: string;
  close(): Promise<void>;
}

/**
 * The app (settings in `env`, dependencies in `options`) with its worker, an account and one pull
 * agent named `agentName`, past the gym (test/support/past-the-gym.ts) unless `options` says not.
 */
export async function startCodingArena(
  env: Record<string, string>,
  agentName: string,
  options: Parameters<typeof startTestApp>[1] = {},
): Promise<CodingArena> {
  const sandboxDir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-coding-'));
  // The sessions' uids pass through it to their own workspace.
  fs.chmodSync(sandboxDir, 0o711);
  const t = await startTestApp({ ARENA_SANDBOX_DIR: sandboxDir, ...env }, options);
  const owner = await register(t.app);
  await t.startWorker();
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/agents',
    headers: owner.auth,
    payload: { name: agentName, mode: 'pull' },
  });
  return {
    t,
    owner,
    agent: created.json(),
    sandboxDir,
    async close() {
      await t.close();
      await removeSandboxDir(sandboxDir);
    },
  };
}

export interface SandboxObject {
  session_id: string;
  api: string;
  mcp_url: string;
  token: string;
  expires_at: string;
  max_steps: number;
}

export interface CodingWork {
  work_id: string;
  prompt: string;
  sandbox: SandboxObject;
}

/**
 * The work item of the coding session `publicId` (or of any of several, or of any the check accepts
 * when it is handed out); gym prompts that come first are answered on the way.
 */
export async function codingWork(
  t: TestApp,
  agent: { id: number; webhook_secret: string },
  publicId: string | readonly string[] | ((workId: string) => Promise<boolean>),
): Promise<CodingWork> {
  const wanted =
    typeof publicId === 'function'
      ? publicId
      : async (workId: string) => (typeof publicId === 'string' ? [publicId] : publicId).includes(workId);
  const secret = { 'x-arena-secret': agent.webhook_secret };
  for (let i = 0; i < 200; i++) {
    const res = await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/work/next?wait=5`, headers: secret });
    if (res.statusCode === 204) continue;
    const work = res.json();
    if (await wanted(work.work_id)) return work;
    if (work.sandbox) throw new Error(`another coding session came first: ${work.work_id}`);
    await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/work/${work.work_id}/result`,
      headers: secret,
      payload: { response: 'a gym answer' },
    });
  }
  throw new Error(`${typeof publicId === 'function' ? 'the session wanted' : String(publicId)} never handed out`);
}

/** Starts a coding session on `task` for the agent, as its owner (202): the pending session's public id. */
export async function startCodingSession(
  t: TestApp,
  owner: Registered,
  agentId: number,
  task = 'python/leap-year',
  deadlineSeconds?: number,
): Promise<string> {
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agentId}/sandbox`,
    headers: owner.auth,
    payload: { task, ...(deadlineSeconds ? { deadline_seconds: deadlineSeconds } : {}) },
  });
  if (res.statusCode !== 202) throw new Error(`starting a coding session answered ${res.statusCode}: ${res.body}`);
  return res.json().id;
}

/** Starts a coding session and takes its work item, as the agent's runner does. */
export async function openCodingSession(
  t: TestApp,
  owner: Registered,
  agent: { id: number; webhook_secret: string },
  task = 'python/leap-year',
  deadlineSeconds?: number,
): Promise<CodingWork> {
  return codingWork(t, agent, await startCodingSession(t, owner, agent.id, task, deadlineSeconds));
}

/**
 * A coding session opened through the service, as the API's route opens it, with a deadline below
 * the API's floor of 60 s: a test of what happens at the deadline waits seconds, not a minute. The
 * floor is the API's and tested there; the timer's own timing is tested in virtual time
 * (test/unit/workflows/deadlines.test.ts).
 */
export async function openShortCodingSession(
  { t, owner, agent }: Pick<CodingArena, 't' | 'owner' | 'agent'>,
  deadlineSeconds: number,
  task = 'python/leap-year',
): Promise<CodingWork> {
  const workflows = {
    client: new Client({ connection: t.temporal, namespace: t.config.temporalNamespace }),
    taskQueue: t.config.taskQueue,
    gymRetrySeconds: t.config.gymRetrySeconds,
    callTimeoutMs: 10_000,
    eagerStart: false,
  };
  const row = await startCodingTask(
    t.orm.em.fork(),
    codingDepsOf(workflows, t.config.sandbox),
    { agentId: agent.id, ownerId: owner.userId },
    { task, deadline_seconds: deadlineSeconds },
    t.app.log,
  );
  return codingWork(t, agent, deliveryJson(row, true).id);
}

/** The agent's public feed entry of a session (the newest 100 are enough for a test's sessions). */
export async function feedEntryOf(
  t: TestApp,
  agentId: number,
  publicId: string,
): Promise<Record<string, unknown> & { status: string }> {
  const feed = (await t.app.inject({ method: 'GET', url: `/api/agents/${agentId}/activity?limit=100` })).json();
  return feed.sessions.find((s: { id: string }) => s.id === publicId);
}

/** A step as the agent takes it: a path under the session's API, with its token unless headers say otherwise. */
export function stepOf(t: TestApp, sandbox: SandboxObject) {
  return (method: 'GET' | 'POST' | 'PUT', what: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const url = new URL(`${sandbox.api}/${what}`);
    const all: Record<string, string> = { authorization: `Bearer ${sandbox.token}`, ...headers };
    if (all.authorization === '') delete all.authorization;
    return t.app.inject({
      method,
      url: url.pathname + url.search,
      headers: all,
      ...(payload === undefined ? {} : typeof payload === 'string' ? { payload } : { payload: payload as object }),
    });
  };
}

/** python/leap-year solved as an agent solves it: calendar_utils.py read, then written back with the century rule. */
export async function fixCenturyRule(step: ReturnType<typeof stepOf>): Promise<void> {
  const source = (await step('GET', 'files?path=calendar_utils.py')).body;
  const fixed = source.replace(
    '    return year % 4 == 0',
    '    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)',
  );
  const written = await step('PUT', 'files?path=calendar_utils.py', fixed, { 'content-type': 'text/plain' });
  if (written.statusCode !== 204)
    throw new Error(`writing calendar_utils.py answered ${written.statusCode}: ${written.body}`);
}
