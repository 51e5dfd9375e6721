import childProcess from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { SandboxSettings } from '../../../infra/config';
import {
  checkIsolation,
  isolationWarning,
  IsolationUnavailableError,
  probeIsolation,
  probeOf,
  runIsolated,
  WALL_TIMEOUT_EXIT_CODE,
} from '../../../infra/sandbox/isolation';
import { removeWorkspace, type Workspace } from '../../../infra/sandbox/workspaces';
import {
  BROKEN_BWRAP_PROBE,
  brokenBwrapTools,
  freshWorkspace,
  processesOf,
  removeSandboxScratch,
  sandboxScratch,
} from '../../sandbox/support';

let settings: SandboxSettings;
let workspace: Workspace;

beforeAll(async () => {
  settings = await sandboxScratch();
});
beforeEach(async () => {
  workspace = await freshWorkspace(settings, [
    { path: 'greet.py', content: 'import sys\nprint("hello", sys.stdin.read().strip())\n' },
  ]);
});
afterEach(() => removeWorkspace(workspace));
afterAll(() => removeSandboxScratch(settings));

const run = (command: string | string[], extra: { stdin?: string; timeoutSeconds?: number } = {}) =>
  runIsolated({ workspace, command, timeoutSeconds: 20, limits: settings.limits, ...extra });

describe('runIsolated', () => {
  it('runs python3 and node in the workspace, with stdin, and reports their exit codes', async () => {
    const python = await run(['python3', 'greet.py'], { stdin: 'arena\n' });
    expect(python).toMatchObject({ exit_code: 0, stdout: 'hello arena\n', stderr: '', truncated: false });
    expect(python.duration_ms).toBeGreaterThan(0);

    const node = await run('node -e "console.log(process.cwd()); console.error(\'to stderr\'); process.exit(3)"');
    expect(node).toMatchObject({ exit_code: 3, stdout: '/workspace\n', stderr: 'to stderr\n' });
    expect((await run('pwd; echo $HOME')).stdout).toBe('/workspace\n/workspace\n');
  });

  it('copes with a command that leaves its stdin unread', async () => {
    await expect(run('exit 4', { stdin: 'x'.repeat(4 * 2 ** 20) })).resolves.toMatchObject({ exit_code: 4 });
    await expect(run('head -c 3', { stdin: 'abcdef'.repeat(2 ** 20) })).resolves.toMatchObject({ stdout: 'abc' });
  });

  it('runs a string through /bin/sh -c and an argument list as it is, without a shell', async () => {
    expect((await run('echo $((6 * 7)) | tr 4 X')).stdout).toBe('X2\n');
    expect((await run(['echo', '$HOME', '*'])).stdout).toBe('$HOME *\n');
    const missing = await run(['no-such-program']);
    expect(missing.exit_code).not.toBe(0);
    expect(missing.stderr).toContain('no-such-program');
  });

  it('gives the command a small fixed environment and a user of its own', async () => {
    expect((await run(['/usr/bin/env'])).stdout.split('\n').filter(Boolean).sort()).toEqual([
      'HOME=/workspace',
      'LANG=C.UTF-8',
      expect.stringMatching(/^PATH=[^:]/),
      'PWD=/workspace',
    ]);
    const who = await run('id -u; id -un; hostname');
    expect(who.stdout).toBe(`${workspace.uid}\nsandbox\nsandbox\n`);
  });

  it('keeps what the command writes in the workspace, owned by the session uid', async () => {
    await run('mkdir -p out && echo result > out/answer.txt');
    const file = path.join(workspace.dir, 'out', 'answer.txt');
    expect(await fs.readFile(file, 'utf8')).toBe('result\n');
    expect((await fs.stat(file)).uid).toBe(workspace.uid);
  });

  it('lets a command serve and connect on its own loopback', async () => {
    const script = [
      'import socket, threading',
      's = socket.socket(); s.bind(("localhost", 0)); s.listen()',
      'threading.Thread(target=lambda: s.accept()[0].sendall(b"pong"), daemon=True).start()',
      'c = socket.create_connection(("localhost", s.getsockname()[1])); print(c.recv(4).decode())',
    ].join('\n');
    expect(await run(['python3', '-c', script])).toMatchObject({ exit_code: 0, stdout: 'pong\n' });
  });

  it(`ends a command at its wall time with exit code ${WALL_TIMEOUT_EXIT_CODE}, its children too`, async () => {
    const started = Date.now();
    const result = await run('sleep 60 & while :; do :; done', { timeoutSeconds: 1 });
    expect(result.exit_code).toBe(WALL_TIMEOUT_EXIT_CODE);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(result.duration_ms).toBeGreaterThanOrEqual(1_000);
    await expect(processesOf(workspace.uid)).resolves.toEqual([]);
  });

  it('leaves nothing running once it returns, not even a daemon the command started', async () => {
    for (let round = 0; round < 5; round++) {
      const result = await run('for i in 1 2 3 4 5; do sleep 30 </dev/null >/dev/null 2>&1 & done; echo started');
      expect(result).toMatchObject({ exit_code: 0, stdout: 'started\n' });
      await expect(processesOf(workspace.uid)).resolves.toEqual([]);
    }
  });

  it('ends a command that spends its CPU seconds (SIGXCPU, 128 + 24)', async () => {
    const result = await runIsolated({
      workspace,
      command: 'while :; do :; done',
      timeoutSeconds: 30,
      limits: { ...settings.limits, cpuSeconds: 1 },
    });
    expect(result.exit_code).toBe(128 + 24);
    expect(result.duration_ms).toBeLessThan(10_000);
  });

  it('stops files at the file size limit and open files at the open files limit', async () => {
    const result = await runIsolated({
      workspace,
      command: [
        'python3',
        '-c',
        [
          'import os',
          'try:',
          '    open("big.bin", "wb").write(b"x" * (2 << 20))',
          'except OSError as e: print("write:", e.strerror)',
          'try:',
          '    [open("greet.py") for _ in range(100)]',
          'except OSError as e: print("open:", e.strerror)',
        ].join('\n'),
      ],
      timeoutSeconds: 20,
      limits: { ...settings.limits, fileSizeBytes: 2 ** 20, openFiles: 64 },
    });
    expect(result.stdout).toBe('write: File too large\nopen: Too many open files\n');
    expect((await fs.stat(path.join(workspace.dir, 'big.bin'))).size).toBe(2 ** 20);
  });

  it('cuts stdout and stderr each at the output limit and says so', async () => {
    const result = await runIsolated({
      workspace,
      command: 'head -c 5000 /dev/zero | tr "\\0" a; head -c 10 /dev/zero | tr "\\0" b >&2',
      timeoutSeconds: 20,
      limits: { ...settings.limits, outputBytes: 1000 },
    });
    expect(result).toMatchObject({ exit_code: 0, stdout: 'a'.repeat(1000), stderr: 'b'.repeat(10), truncated: true });
    expect((await run('echo short')).truncated).toBe(false);
  });

  it('keeps the end instead when asked, where a test run prints its summary', async () => {
    const result = await runIsolated({
      workspace,
      command: 'seq 1 100000; echo "Ran 6 tests"; seq 1 3000 >&2',
      timeoutSeconds: 20,
      limits: { ...settings.limits, outputBytes: 1000 },
      keep: 'tail',
    });
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.stdout)).toBe(1000);
    expect(result.stdout.endsWith('99999\n100000\nRan 6 tests\n')).toBe(true);
    expect(result.stderr.endsWith('2999\n3000\n')).toBe(true);
    const accented = await runIsolated({
      workspace,
      command: ['python3', '-c', 'print("é" * 100, end="")'],
      timeoutSeconds: 20,
      limits: { ...settings.limits, outputBytes: 11 },
      keep: 'tail',
    });
    expect(accented.stdout).toBe('é'.repeat(5));
  });

  it('does not cut a multi-byte character in two', async () => {
    const result = await runIsolated({
      workspace,
      command: ['python3', '-c', 'print("é" * 100, end="")'],
      timeoutSeconds: 20,
      limits: { ...settings.limits, outputBytes: 11 },
    });
    expect(result.stdout).toBe('é'.repeat(5));
  });
});

describe('checkIsolation', () => {
  it('finds bubblewrap usable here, once per process', async () => {
    const probe = probeOf(settings);
    await expect(checkIsolation(probe)).resolves.toEqual({ ok: true });
    const again = checkIsolation(probe);
    expect(again).toBe(checkIsolation(probe));
  });

  it('names what is missing when a tool is not installed', async () => {
    const probe = probeOf(settings);
    const empty = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-no-tools-'));
    try {
      await expect(probeIsolation(probe, { toolDirs: [empty] })).resolves.toEqual({
        ok: false,
        reason: "isolation unavailable: bwrap is not installed (Debian's bubblewrap package)",
      });
      await fs.symlink('/usr/bin/bwrap', path.join(empty, 'bwrap'));
      await expect(probeIsolation(probe, { toolDirs: [empty] })).resolves.toEqual({
        ok: false,
        reason: 'isolation unavailable: setpriv is not installed (the util-linux package)',
      });
    } finally {
      await fs.rm(empty, { recursive: true, force: true });
    }
  });

  it("passes on bubblewrap's own words when it cannot make a sandbox", async () => {
    const tools = await brokenBwrapTools();
    try {
      await expect(probeIsolation(probeOf(settings), { toolDirs: [tools] })).resolves.toEqual(BROKEN_BWRAP_PROBE);
    } finally {
      await fs.rm(tools, { recursive: true, force: true });
    }
  });

  it('gives the start-up a warning line only when isolation is unavailable', async () => {
    await expect(isolationWarning(probeOf(settings))).resolves.toBeUndefined();
    await jest.isolateModulesAsync(async () => {
      jest.doMock('../../../infra/sandbox/system-layout', () => ({
        ...jest.requireActual('../../../infra/sandbox/system-layout'),
        findSandboxTools: () => Promise.resolve({ missing: 'setpriv' }),
      }));
      const isolation = await import('../../../infra/sandbox/isolation');
      await expect(isolation.isolationWarning(probeOf(settings))).resolves.toBe(
        'coding sandbox sessions will end as error: isolation unavailable: setpriv is not installed (the util-linux package)',
      );
    });
  });

  it("runs nothing before the machine was checked with the caller's probe", async () => {
    const spawn = jest.spyOn(childProcess, 'spawn');
    try {
      await jest.isolateModulesAsync(async () => {
        const isolation = await import('../../../infra/sandbox/isolation');
        const running = isolation.runIsolated({
          workspace,
          command: 'touch ran',
          timeoutSeconds: 5,
          limits: settings.limits,
        });
        await expect(running).rejects.toThrow('the machine was not checked for isolation');
      });
      expect(spawn).not.toHaveBeenCalled();
      await expect(fs.access(path.join(workspace.dir, 'ran'))).rejects.toThrow('ENOENT');
    } finally {
      spawn.mockRestore();
    }
  });

  it('keeps runIsolated from running anything when isolation is unavailable', async () => {
    const spawn = jest.spyOn(childProcess, 'spawn');
    try {
      await jest.isolateModulesAsync(async () => {
        jest.doMock('../../../infra/sandbox/system-layout', () => ({
          ...jest.requireActual('../../../infra/sandbox/system-layout'),
          findSandboxTools: () => Promise.resolve({ missing: 'bwrap' }),
        }));
        const isolation = await import('../../../infra/sandbox/isolation');
        await expect(isolation.checkIsolation(probeOf(settings))).resolves.toMatchObject({ ok: false });
        const running = isolation.runIsolated({
          workspace,
          command: 'touch ran',
          timeoutSeconds: 5,
          limits: settings.limits,
        });
        await expect(running).rejects.toThrow(isolation.IsolationUnavailableError);
        await expect(running).rejects.toThrow(
          "isolation unavailable: bwrap is not installed (Debian's bubblewrap package)",
        );
      });
      expect(spawn).not.toHaveBeenCalled();
      await expect(fs.access(path.join(workspace.dir, 'ran'))).rejects.toThrow('ENOENT');
    } finally {
      spawn.mockRestore();
    }
    expect(IsolationUnavailableError).toBeDefined();
  });
});
