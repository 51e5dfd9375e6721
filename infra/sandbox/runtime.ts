/**
 * A worker's coding sandbox: its own task queue (where the steps of the sessions whose workspaces
 * it holds are sent), and the steps themselves, each isolated. A step the workspace refuses (a
 * missing file, a link, a path that is not allowed) is its result; a sandbox that cannot run it
 * throws, and the session ends as `error`.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ArenaError } from '../../domain/errors';
import { endedSessionsAmong } from '../db/repositories/coding.repository';
import type { SandboxSettings } from './settings';
import type { StoredTaskFile } from '../db/entities/coding-task.entity';
import { checkIsolation, runIsolated, type IsolatedResult, type IsolationCheck } from './isolation';
import {
  copyIntoWorkspace,
  prepareWorkspace,
  readWorkspaceFile,
  removeWorkspace,
  workspaceExists,
  workspaceOf,
  writeWorkspaceFile,
  WorkspaceLostError,
  type Workspace,
} from './workspaces';

export type StepResult = Record<string, unknown>;

/** A worker's own task queue: unique to the process, so a restarted worker never gets steps for workspaces it no longer has. */
export function sandboxTaskQueue(sharedQueue: string): string {
  return `${sharedQueue}-sandbox-${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
}

export class SandboxRuntime {
  constructor(
    readonly settings: SandboxSettings,
    /** This worker's own task queue. */
    readonly taskQueue: string,
  ) {}

  check(): Promise<IsolationCheck> {
    return checkIsolation({ uid: this.settings.uidBase, limits: this.settings.limits });
  }

  async prepare(sessionId: number, files: readonly StoredTaskFile[]): Promise<void> {
    await prepareWorkspace(sessionId, [...files], this.settings);
  }

  /** The session's workspace on this worker; gone means the session cannot go on. */
  private async workspace(sessionId: number): Promise<Workspace> {
    const workspace = workspaceOf(sessionId, this.settings);
    if (!(await workspaceExists(workspace))) throw new WorkspaceLostError(workspace);
    return workspace;
  }

  /** One exec, read or write, from its request as the API stored it. */
  async runStep(sessionId: number, kind: string, request: Record<string, unknown>): Promise<StepResult> {
    const workspace = await this.workspace(sessionId);
    try {
      if (kind === 'exec') {
        const result: IsolatedResult = await runIsolated({
          workspace,
          command: request.command as string | string[],
          stdin: request.stdin as string | undefined,
          timeoutSeconds: request.timeout_seconds as number,
          limits: this.settings.limits,
        });
        return { ...result };
      }
      if (kind === 'read') return { ...(await readWorkspaceFile(workspace, request.path as string)) };
      if (kind === 'write') {
        await writeWorkspaceFile(workspace, request.path as string, request.content as string);
        return { written: Buffer.byteLength(request.content as string, 'utf8') };
      }
      throw new Error(`unknown coding step ${kind}`);
    } catch (err) {
      if (err instanceof ArenaError && (err.kind === 'invalid' || err.kind === 'not_found' || err.kind === 'conflict'))
        return { refused: { kind: err.kind, detail: err.detail } };
      throw err;
    }
  }

  /** Puts the hidden tests in (anything the agent left in their folder goes first) and runs them. */
  async runHiddenTests(
    sessionId: number,
    tests: { dir: string; files: readonly StoredTaskFile[]; command: string[]; timeoutSeconds: number },
  ): Promise<IsolatedResult> {
    const workspace = await this.workspace(sessionId);
    const limits = this.settings.limits;
    await runIsolated({ workspace, command: ['rm', '-rf', '--', tests.dir], timeoutSeconds: 30, limits });
    await copyIntoWorkspace(workspace, [...tests.files]);
    // The score is read from the summary at the end of the output: keep the end.
    return runIsolated({
      workspace,
      command: tests.command,
      timeoutSeconds: tests.timeoutSeconds,
      limits: this.settings.limits,
      keep: 'tail',
    });
  }

  async remove(sessionId: number): Promise<void> {
    await removeWorkspace(workspaceOf(sessionId, this.settings));
  }

  /**
   * Removes the workspaces of sessions that have ended (left by a worker that stopped before its
   * clean-up). Workspaces of running sessions stay: another worker on this machine may hold them.
   */
  async sweep(em: EntityManager): Promise<void> {
    const names = await fs.readdir(this.settings.dir).catch(() => [] as string[]);
    const ids = names.filter((n) => /^[1-9][0-9]{0,9}$/.test(n)).map(Number);
    if (ids.length === 0) return;
    for (const id of await endedSessionsAmong(em, ids)) await this.remove(id);
  }
}
