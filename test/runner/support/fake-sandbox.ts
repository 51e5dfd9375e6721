/** A stand-in for one coding session's step API on loopback: a temp folder as the workspace, no isolation. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface StepRequest {
  method: string;
  /** The request target as sent, query string included and still encoded. */
  url: string;
  step: string;
  path: string | null;
  authorization: string | undefined;
  contentType: string | undefined;
  body: string;
}

export interface SubmitAnswer {
  status: string;
  tests_passed: number;
  tests_total: number;
}

export interface FakeSandboxOptions {
  token?: string;
  /** Starting files, by path relative to the workspace. */
  files?: Record<string, string>;
  /** The hidden tests: the submit answer, given the workspace folder. */
  grade?: (workspace: string) => SubmitAnswer;
  /** The step cap: the step after it is answered 429. */
  maxSteps?: number;
  /** Answers for the first requests, before any runs: refusals of a busy arena (503) or a full account (429). */
  refuseFirst?: Array<{ status: number; retryAfter?: string }>;
}

export interface FakeSandbox {
  /** The session's address, as the payload's `sandbox.api` gives it. */
  api: string;
  token: string;
  sessionId: string;
  workspace: string;
  requests: StepRequest[];
  submitted: boolean;
  /** Ends the session: later steps are answered 409. */
  end(status: string): void;
  file(relative: string): string | undefined;
  close(): Promise<void>;
}

const SESSION_ID = 'sandbox-41';
const STEP = new RegExp(`^/api/agents/7/sandbox/${SESSION_ID}/(exec|files|submit)$`);

export async function startFakeSandbox(opts: FakeSandboxOptions = {}): Promise<FakeSandbox> {
  const token = opts.token ?? 'sbx_fake_session_token';
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-sandbox-'));
  for (const [name, text] of Object.entries(opts.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  let endedAs: string | undefined;
  let steps = 0;

  const send = (res: http.ServerResponse, status: number, body?: unknown, type = 'application/json') => {
    const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, text ? { 'content-type': type } : {});
    res.end(text);
  };
  const inside = (relative: string): string | undefined => {
    if (relative === '' || path.isAbsolute(relative) || relative.split(/[\\/]/).includes('..')) return undefined;
    return path.join(workspace, relative);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://sandbox.test');
      const step = STEP.exec(url.pathname)?.[1];
      const body = Buffer.concat(chunks).toString('utf8');
      const authorization = req.headers.authorization;
      if (step === undefined) return send(res, 404, { detail: 'route not found' });
      sandbox.requests.push({
        method: req.method!,
        url: req.url!,
        step,
        path: url.searchParams.get('path'),
        authorization,
        contentType: req.headers['content-type'],
        body,
      });
      if (authorization !== `Bearer ${token}`) return send(res, 401, { detail: 'missing or invalid session token' });
      const refusal = opts.refuseFirst?.shift();
      if (refusal) {
        if (refusal.retryAfter !== undefined) res.setHeader('retry-after', refusal.retryAfter);
        return send(res, refusal.status, { detail: `refused with ${refusal.status}: the step did not run` });
      }
      if (endedAs !== undefined) return send(res, 409, { detail: `the session has ended (${endedAs})` });
      steps += 1;
      if (opts.maxSteps !== undefined && steps > opts.maxSteps) {
        return send(res, 429, { detail: `the session's ${opts.maxSteps} steps are used up` });
      }

      if (step === 'exec' && req.method === 'POST') {
        const input = JSON.parse(body) as { command: string | string[]; stdin?: string };
        const [file, args] = Array.isArray(input.command)
          ? [input.command[0]!, input.command.slice(1)]
          : ['sh', ['-c', input.command]];
        const started = Date.now();
        const run = spawnSync(file, args, { cwd: workspace, input: input.stdin ?? '', encoding: 'utf8' });
        return send(res, 200, {
          exit_code: run.status ?? 127,
          stdout: run.stdout ?? '',
          stderr: run.stderr ?? run.error?.message ?? '',
          truncated: false,
          duration_ms: Date.now() - started,
        });
      }
      if (step === 'files') {
        const relative = url.searchParams.get('path') ?? '';
        const target = relative === '.' ? workspace : inside(relative);
        if (target === undefined) return send(res, 400, { detail: `path must stay inside the workspace: ${relative}` });
        if (req.method === 'PUT') {
          fs.mkdirSync(path.dirname(target), { recursive: true });
          fs.writeFileSync(target, body);
          return send(res, 204);
        }
        if (req.method !== 'GET') return send(res, 405, { detail: 'method not allowed' });
        if (!fs.existsSync(target)) return send(res, 404, { detail: `no such file or directory: ${relative}` });
        if (fs.statSync(target).isFile()) return send(res, 200, fs.readFileSync(target, 'utf8'), 'text/plain');
        const entries = fs
          .readdirSync(target, { withFileTypes: true })
          .map((e) => ({
            name: e.name,
            type: e.isDirectory() ? 'dir' : 'file',
            size: e.isDirectory() ? 0 : fs.statSync(path.join(target, e.name)).size,
          }))
          .sort((a, b) => a.name.localeCompare(b.name));
        return send(res, 200, { path: relative, entries });
      }
      if (step === 'submit' && req.method === 'POST') {
        const answer = opts.grade?.(workspace) ?? { status: 'failed', tests_passed: 0, tests_total: 1 };
        sandbox.submitted = true;
        endedAs = answer.status;
        return send(res, 200, answer);
      }
      send(res, 405, { detail: 'method not allowed' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const sandbox: FakeSandbox = {
    api: `http://127.0.0.1:${port}/api/agents/7/sandbox/${SESSION_ID}`,
    token,
    sessionId: SESSION_ID,
    workspace,
    requests: [],
    submitted: false,
    end(status) {
      endedAs = status;
    },
    file(relative) {
      const target = path.join(workspace, relative);
      return fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : undefined;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          fs.rmSync(workspace, { recursive: true, force: true });
          resolve();
        });
      }),
  };
  return sandbox;
}
