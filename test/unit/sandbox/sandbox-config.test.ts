import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../infra/config';
import { uidRangeOf } from '../../../infra/sandbox/settings';

describe('sandbox settings', () => {
  it('default to a folder in the OS temp folder, a uid range clear of the usual ones and modest limits', () => {
    expect(loadConfig({}).sandbox).toMatchObject({
      dir: expect.stringMatching(new RegExp(`^${os.tmpdir()}/arena-sandbox-[0-9a-f]{12}$`)),
      uidBase: 200_000,
      uidCount: 100_000,
      limits: {
        memoryBytes: 1024 * 2 ** 20,
        processes: 64,
        cpuSeconds: 60,
        outputBytes: 64 * 1024,
        fileSizeBytes: 64 * 2 ** 20,
        openFiles: 256,
        tmpBytes: 64 * 2 ** 20,
      },
    });
  });

  it('are read from ARENA_SANDBOX_*', () => {
    const sandbox = loadConfig({
      ARENA_SANDBOX_DIR: 'workspaces',
      ARENA_SANDBOX_UID_BASE: '500000',
      ARENA_SANDBOX_UID_COUNT: '1000',
      ARENA_SANDBOX_MEMORY_MB: '2048',
      ARENA_SANDBOX_PROCESSES: '128',
      ARENA_SANDBOX_CPU_SECONDS: '30',
      ARENA_SANDBOX_OUTPUT_BYTES: '1000',
      ARENA_SANDBOX_FILE_SIZE_MB: '8',
      ARENA_SANDBOX_OPEN_FILES: '64',
      ARENA_SANDBOX_TMP_MB: '16',
    }).sandbox;
    expect(sandbox).toMatchObject({
      dir: path.resolve('workspaces'),
      uidBase: 500_000,
      uidCount: 1000,
      limits: {
        memoryBytes: 2048 * 2 ** 20,
        processes: 128,
        cpuSeconds: 30,
        outputBytes: 1000,
        fileSizeBytes: 8 * 2 ** 20,
        openFiles: 64,
        tmpBytes: 16 * 2 ** 20,
      },
    });
  });

  it('refuse uids that belong to people or system services, and ranges past the last uid', () => {
    expect(() => loadConfig({ ARENA_SANDBOX_UID_BASE: '0' })).toThrow(
      'ARENA_SANDBOX_UID_BASE: must be at least 10000, clear of the system and login users',
    );
    expect(() => loadConfig({ ARENA_SANDBOX_UID_BASE: '4294960000', ARENA_SANDBOX_UID_COUNT: '100000' })).toThrow(
      'ARENA_SANDBOX_UID_COUNT: the range must end at uid 4294967294 or below',
    );
    expect(() => loadConfig({ ARENA_SANDBOX_UID_COUNT: '5' })).toThrow(
      "ARENA_SANDBOX_UID_COUNT: must be at least ARENA_CODING_SCORING_SLOTS + 2 (6): a uid for each scoring's judge, one for the isolation check, and one for a session",
    );
    const { sandbox } = loadConfig({ ARENA_SANDBOX_UID_COUNT: '6' });
    expect(uidRangeOf(sandbox)).toEqual({ uidBase: 200_000, sessions: 1, judgesBase: 200_001, judges: 4 });
  });

  it('refuse a memory limit node and python cannot start under', () => {
    expect(() => loadConfig({ ARENA_SANDBOX_MEMORY_MB: '512' })).toThrow(
      'ARENA_SANDBOX_MEMORY_MB: must be at least 768 (node reserves that much address space to start)',
    );
  });
});
