/**
 * Fair shares of the sandbox, the set-up of its tests: an arena with two accounts (a holder and its
 * neighbour), each with a pull agent, and sessions opened, written and submitted as their agents do.
 * Each judge runs as a uid leased for its scoring; a uid's process limit (ARENA_SANDBOX_PROCESSES,
 * 64) was shared by every judge before, and a JavaScript judge holds 13.
 */
import fs from 'node:fs/promises';
import { loadTaskCatalogue } from '../../infra/sandbox/task-catalogue';
import { register, type Registered, type TestApp } from '../support/test-app';
import { openCodingSession, startCodingArena, stepOf, type CodingArena, type CodingWork } from './coding-support';

export type Account = { owner: Registered; agent: { id: number; webhook_secret: string } };
type File = { path: string; content: string };

/** The task's reference solution, as files to write. */
export async function solutionOf(task: string): Promise<File[]> {
  const files = await loadTaskCatalogue()
    .find((candidate) => candidate.id === task)!
    .readSolution();
  return files.map((file) => ({ path: file.path, content: file.content.toString('utf8') }));
}

/** Judges running on this machine now (any arena's): their command lines name the harness's judge. */
export async function judgesRunning(): Promise<number> {
  const pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const lines = await Promise.all(pids.map((pid) => fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')));
  return lines.filter((line) => /\/opt\/arena-harness\/(node\/judge\.mjs|python\/judge\.py)/.test(line)).length;
}

/** The arena of a test file (started before its tests, closed after), and what its tests do in it. */
export function useFairSharesArena() {
  let arena: CodingArena;
  let t: TestApp;
  const accounts = {} as { holder: Account; neighbour: Account };

  beforeAll(async () => {
    arena = await startCodingArena({ ARENA_GYM_RETRY_SECONDS: '3600', ARENA_SANDBOX_RATE_LIMIT: '1000' }, 'holder');
    t = arena.t;
    accounts.holder = { owner: arena.owner, agent: arena.agent };
    const owner = await register(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'neighbour', mode: 'pull' },
    });
    accounts.neighbour = { owner, agent: created.json() };
  }, 120_000);
  afterAll(() => arena?.close());

  return {
    accounts,
    /** `count` sessions of the account's agent on `task`, opened one after another (its runner takes one work item at a time). */
    async open({ owner, agent }: Account, count: number, task: string): Promise<CodingWork[]> {
      const opened: CodingWork[] = [];
      for (let i = 0; i < count; i++) opened.push(await openCodingSession(t, owner, agent, task));
      return opened;
    },
    async write(w: CodingWork, files: File[]): Promise<void> {
      for (const file of files) {
        const written = await stepOf(t, w.sandbox)('PUT', `files?path=${file.path}`, { content: file.content });
        expect(written.statusCode).toBe(204);
      }
    },
    async submit(w: CodingWork): Promise<{ status: string; tests_passed: number }> {
      return (await stepOf(t, w.sandbox)('POST', 'submit')).json();
    },
  };
}
