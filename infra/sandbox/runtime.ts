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
import { FairSlots } from '../../domain/sandbox/fair-slots';
import { endedDeliveriesAmong } from '../db/repositories/coding.repository';
import { leaseSandboxUid, releaseSandboxUid } from '../db/repositories/sandbox-uid.repository';
import { CpuGroups } from './cpu-groups';
import { HostUidLocks } from './host-uid-locks';
import { JudgeUids } from './judge-uids';
import { claimSandboxFolder, isArenasFolder } from './sandbox-folder';
import { uidRangeOf, type SandboxSettings } from './settings';
import type { StoredTaskFile } from '../db/entities/coding-task.entity';
import {
  cleanRoomDirOf,
  removeJudgesScratch,
  roomCleared,
  scoreInCleanRoom,
  type CleanRoomScore,
  type ScoredTask,
} from './clean-room';
import {
  checkIsolation,
  IsolationUnavailableError,
  probeOf,
  runIsolated,
  type IsolatedResult,
  type IsolationCheck,
} from './isolation';
import { stopProcessesOf } from './session-processes';
import {
  findWorkspace,
  prepareWorkspace,
  readWorkspaceFile,
  removeWorkspace,
  workspaceDirOf,
  writeWorkspaceFile,
  WorkspaceLostError,
  type Workspace,
} from './workspaces';

export type StepResult = Record<string, unknown>;

/** A worker's own task queue: unique to the process, so a restarted worker never gets steps for workspaces it no longer has. */
export function sandboxTaskQueue(sharedQueue: string): string {
  return `${sharedQueue}-sandbox-${os.hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
}

const SESSION_ENDED = 'the session has ended: its deadline passed, or it was submitted or cancelled';

/** Scorings tried in all when the arena's own part fails (a sandbox that could not start, a judge that did not report). */
const SCORING_TRIES = 3;
const SCORING_RETRY_MS = 1_000;

/**
 * A scoring, run again while the arena's own part fails: it throws (a sandbox that could not start),
 * or its judge did not report. A workspace that is gone, or a machine that cannot isolate, is not
 * tried again; the last try's answer or error stands.
 */
export async function triedAgain(
  scoring: () => Promise<CleanRoomScore>,
  tries = SCORING_TRIES,
  waitMs = SCORING_RETRY_MS,
): Promise<CleanRoomScore> {
  for (let attempt = 1; ; attempt++) {
    let score: CleanRoomScore | undefined;
    try {
      score = await scoring();
    } catch (err) {
      if (err instanceof WorkspaceLostError || err instanceof IsolationUnavailableError || attempt >= tries) throw err;
    }
    if (score && (score.unread === undefined || attempt >= tries)) return score;
    await new Promise((resolve) => setTimeout(resolve, waitMs * attempt));
  }
}

export class SandboxRuntime {
  /** Sessions being ended here: no step of theirs starts a command any more. */
  private readonly stopped = new Set<number>();
  /** Steps running here, by session. */
  private readonly running = new Map<number, number>();
  /** The exec each session runs now, by session, with its step: `cancelStep` stops it. */
  private readonly runningSteps = new Map<number, { stepId: number; cancel: AbortController }>();
  /** The uids this process's sessions hold on the host, whatever arena and database they belong to. */
  private readonly hostLocks = new HostUidLocks();
  /** The uids this process's judges hold, one per scoring. */
  private readonly judges: JudgeUids;
  /** The scorings this worker runs at once, shared fairly among accounts. */
  readonly scoringSlots: FairSlots;
  /** The host's cpu control groups, once the worker has started (`claimFolder`). */
  cpu: CpuGroups = CpuGroups.none('the worker has not started');

  constructor(
    readonly settings: SandboxSettings,
    /** This worker's own task queue. */
    readonly taskQueue: string,
  ) {
    this.judges = new JudgeUids(uidRangeOf(settings));
    const slots = settings.capacity.scoringSlots;
    this.scoringSlots = new FairSlots(slots, Math.max(1, Math.floor(slots / 2)));
  }

  check(): Promise<IsolationCheck> {
    return checkIsolation(probeOf(this.settings));
  }

  /**
   * Claims the sandbox folder for this arena at the worker's start, or throws SandboxFolderError with
   * a sentence naming it. Where isolation is unavailable no session starts anyway (the check says why).
   */
  async claimFolder(): Promise<void> {
    if (!(await this.check()).ok) return;
    await claimSandboxFolder(this.settings.dir, this.settings.arena, probeOf(this.settings).uid);
    this.cpu = await CpuGroups.open(this.settings.dir);
  }

  /**
   * A uid for the session that no other live session holds, in this arena (its lease row) or in any
   * other arena on this machine (the host-wide lock this process takes): the one it holds already on
   * a retried preparation. Undefined when every uid of the range is held.
   */
  async leaseUid(em: EntityManager, sessionId: number): Promise<number | undefined> {
    const heldElsewhere: number[] = [];
    for (;;) {
      const uid = await leaseSandboxUid(em, sessionId, uidRangeOf(this.settings), heldElsewhere);
      if (uid === undefined) return undefined;
      if (await this.hostLocks.hold(uid)) return uid;
      // Another arena on this machine holds it: this lease goes, and the next uid is tried.
      await releaseSandboxUid(em, sessionId);
      heldElsewhere.push(uid);
    }
  }

  /** The session's uid goes back to the range, and its host-wide lock with it. */
  async releaseUid(em: EntityManager, sessionId: number): Promise<void> {
    const uid = await releaseSandboxUid(em, sessionId);
    if (uid !== undefined) await this.hostLocks.release(uid);
  }

  /** Makes the session's workspace, owned by `uid` (its lease), with the task's starting files. */
  async prepare(sessionId: number, uid: number, files: readonly StoredTaskFile[]): Promise<void> {
    this.stopped.delete(sessionId);
    await prepareWorkspace(sessionId, uid, [...files], this.settings);
  }

  /** The session's workspace on this worker; gone means the session cannot go on. */
  private async workspace(sessionId: number): Promise<Workspace> {
    const workspace = await findWorkspace(sessionId, this.settings);
    if (!workspace) throw new WorkspaceLostError({ dir: workspaceDirOf(sessionId, this.settings) });
    return workspace;
  }

  /**
   * One exec, read or write, from its request as the API stored it. A command stops at the session's
   * deadline (`deadlineAt`, epoch ms) if its own timeout is later; none starts once the session is ending.
   */
  async runStep(
    sessionId: number,
    kind: string,
    request: Record<string, unknown>,
    deadlineAt?: number,
    stepId?: number,
  ): Promise<StepResult> {
    this.running.set(sessionId, (this.running.get(sessionId) ?? 0) + 1);
    try {
      const workspace = await this.workspace(sessionId);
      const left = deadlineAt === undefined ? Infinity : (deadlineAt - Date.now()) / 1000;
      if (this.stopped.has(sessionId) || left <= 0) throw new ArenaError('conflict', SESSION_ENDED);
      if (kind === 'exec') {
        const cancel = new AbortController();
        if (stepId !== undefined) this.runningSteps.set(sessionId, { stepId, cancel });
        try {
          const result: IsolatedResult = await runIsolated({
            workspace,
            command: request.command as string | string[],
            stdin: request.stdin as string | undefined,
            timeoutSeconds: Math.min(request.timeout_seconds as number, left),
            limits: this.settings.limits,
            cpuGroup: await this.cpu.steps(),
            signal: cancel.signal,
          });
          return { ...result, ...(cancel.signal.aborted ? { cancelled: true } : {}) };
        } finally {
          if (this.runningSteps.get(sessionId)?.cancel === cancel) this.runningSteps.delete(sessionId);
        }
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
    } finally {
      const left = (this.running.get(sessionId) ?? 1) - 1;
      if (left > 0) this.running.set(sessionId, left);
      else this.running.delete(sessionId);
    }
  }

  /**
   * Stops the command of step `stepId` if it is the one the session runs now (the client that asked
   * for it cancelled the call): it ends as a wall-time kill would, and its step is recorded with what
   * it printed. Answers whether it was running. Processes an earlier step left behind are not touched.
   */
  cancelStep(sessionId: number, stepId: number): boolean {
    const running = this.runningSteps.get(sessionId);
    if (running?.stepId !== stepId) return false;
    running.cancel.abort();
    return true;
  }

  /**
   * Ends everything of the session: no step of it starts a command from now on, and every process of
   * its uid is killed, a step in flight among them. Resolves once none is left.
   */
  async stop(sessionId: number): Promise<void> {
    this.stopped.add(sessionId);
    const workspace = await findWorkspace(sessionId, this.settings);
    if (!workspace) return;
    await stopProcessesOf(workspace.uid, () => this.running.has(sessionId));
  }

  /**
   * Scores what the session left, in a clean room; stops it first, unless `stop` already did and nothing
   * of it runs. The scoring waits for one of the worker's scoring slots, behind the account's own
   * scorings first (`account`: the agent's owner). The arena's own failures are tried again: a sandbox
   * that could not start, a judge that did not report; a workspace gone or a machine that cannot
   * isolate is not.
   */
  async score(sessionId: number, task: ScoredTask, account: number): Promise<CleanRoomScore> {
    if (!this.stopped.has(sessionId) || this.running.has(sessionId)) await this.stop(sessionId);
    const workspace = await this.workspace(sessionId);
    const release = await this.scoringSlots.take(account);
    try {
      return await triedAgain(() =>
        scoreInCleanRoom(workspace, task, this.settings, { judges: this.judges, cpu: this.cpu }),
      );
    } finally {
      release();
    }
  }

  /** What the worker leaves as it stops: its cpu groups, and the judges' scratch file systems no other judge holds. */
  async close(): Promise<void> {
    await this.cpu.remove();
    if (await isArenasFolder(this.settings.dir, this.settings.arena)) await removeJudgesScratch(this.settings.dir);
  }

  async remove(sessionId: number): Promise<void> {
    const dir = workspaceDirOf(sessionId, this.settings);
    const room = cleanRoomDirOf({ dir });
    await roomCleared(room);
    // A scoring cut short (its worker stopped) leaves its clean room and the judge's folder.
    for (const left of [room, `${room}-judge`]) await fs.rm(left, { recursive: true, force: true });
    await removeWorkspace({ sessionId, dir });
    this.stopped.delete(sessionId);
  }

  /**
   * Removes the workspaces (and clean rooms) of sessions that have ended, left by a worker that stopped
   * before its clean-up. Workspaces of running sessions stay: another worker on this machine may hold them.
   */
  async sweep(em: EntityManager): Promise<void> {
    // Another arena's folder (or one not yet claimed) holds no workspace of this arena's.
    if (!(await isArenasFolder(this.settings.dir, this.settings.arena))) return;
    await removeJudgesScratch(this.settings.dir);
    const names = await fs.readdir(this.settings.dir).catch(() => [] as string[]);
    const ids = [
      ...new Set(names.map((n) => /^([1-9][0-9]{0,9})(?:-score(?:-judge)?)?$/.exec(n)?.[1]).filter(Boolean)),
    ].map(Number);
    if (ids.length === 0) return;
    for (const id of await endedDeliveriesAmong(em, ids)) {
      await this.remove(id);
      await this.releaseUid(em, id);
    }
  }
}
