/**
 * A task checked before it enters the catalogue, exactly as scoring runs it: in a clean room, by the
 * arena's harness, in the read-only sandbox. Its reference solution must pass every hidden test and
 * its untouched starting files must not.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { SandboxLanguage } from '../../domain/sandbox/languages';
import { cleanRoomDirOf, roomCleared, scoreInCleanRoom } from './clean-room';
import { probeOf } from './isolation';
import type { SandboxSettings } from './settings';
import { prepareWorkspaceRoot } from './workspaces';

type File = { path: string; content: string };

export interface TaskToValidate {
  language: SandboxLanguage;
  manifest: { tests_total: number; limits: { test_timeout_seconds: number } };
  files: readonly File[];
  hiddenTests: readonly File[];
  /** The reference solution: the files it changes or adds, over the starting files. */
  reference: readonly File[];
}

/** Why the task does not behave, or undefined when it does. Throws when the sandbox cannot run at all. */
export async function validateTask(task: TaskToValidate, settings: SandboxSettings): Promise<string | undefined> {
  const solved = await scoreAs(task, task.reference, settings);
  if (solved.tampered) return `its reference solution was scored as tampering (${solved.tampered})`;
  if (solved.unread) return `its reference solution gave no score (${solved.unread})`;
  if (solved.passed !== task.manifest.tests_total)
    return `its reference solution passes ${solved.passed} of ${task.manifest.tests_total} hidden tests`;
  const untouched = await scoreAs(task, [], settings);
  if (untouched.passed >= task.manifest.tests_total && !untouched.tampered && !untouched.unread)
    return 'its starting files already pass every hidden test';
  return undefined;
}

/**
 * One scoring of the starting files with `changes` written over them. The workspace is a folder of
 * its own in the sandbox folder, worked as the isolation check's uid, which no session leases.
 */
export async function scoreAs(task: TaskToValidate, changes: readonly File[], settings: SandboxSettings) {
  await prepareWorkspaceRoot(settings.dir);
  const dir = path.join(settings.dir, `validate-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    await fs.mkdir(dir, { mode: 0o755 });
    for (const file of [...task.files, ...changes]) {
      const target = path.join(dir, file.path);
      if (!target.startsWith(dir + path.sep)) throw new Error(`${file.path} leads outside the workspace`);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, file.content);
    }
    return await scoreInCleanRoom(
      { sessionId: 0, dir, uid: probeOf(settings).uid },
      {
        language: task.language,
        files: task.files.map((f) => ({ path: f.path, content: Buffer.from(f.content) })),
        hiddenTests: task.hiddenTests.map((f) => ({ path: f.path, content: Buffer.from(f.content) })),
        testsTotal: task.manifest.tests_total,
        timeoutSeconds: task.manifest.limits.test_timeout_seconds,
      },
      settings,
    );
  } finally {
    await roomCleared(cleanRoomDirOf({ dir }));
    await fs.rm(dir, { recursive: true, force: true });
  }
}
