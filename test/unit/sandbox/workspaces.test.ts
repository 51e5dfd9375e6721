import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ArenaError } from '../../../domain/errors';
import type { SandboxSettings } from '../../../infra/config';
import { runIsolated } from '../../../infra/sandbox/isolation';
import {
  copyIntoWorkspace,
  listWorkspace,
  findWorkspace,
  prepareWorkspace,
  prepareWorkspaceRoot,
  readWorkspaceFile,
  removeWorkspace,
  WorkspaceLostError,
  writeWorkspaceFile,
  type Workspace,
} from '../../../infra/sandbox/workspaces';
import { freshWorkspace, removeSandboxScratch, sandboxScratch } from '../../sandbox/support';

let settings: SandboxSettings;
let workspace: Workspace;
/** A folder on the host outside every workspace, standing for what an agent must not reach. */
let host: string;

beforeAll(async () => {
  settings = await sandboxScratch();
});
beforeEach(async () => {
  workspace = await freshWorkspace(settings, [
    { path: 'README.md', content: '# task\n' },
    { path: 'src/app.py', content: 'print("hi")\n' },
  ]);
  host = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-host-'));
  await fs.chmod(host, 0o755);
  await fs.writeFile(path.join(host, 'secret.txt'), 'host secret\n', { mode: 0o644 });
});
afterEach(async () => {
  await removeWorkspace(workspace);
  await fs.rm(host, { recursive: true, force: true });
});
afterAll(() => removeSandboxScratch(settings));

const exec = (command: string) =>
  runIsolated({ workspace, command, timeoutSeconds: 20, limits: settings.limits }).then((result) => {
    expect(result).toMatchObject({ exit_code: 0, stderr: '' });
    return result.stdout;
  });

async function refusal(promise: Promise<unknown>): Promise<{ kind: string; detail: string }> {
  const err: unknown = await promise.then(
    () => new Error('accepted'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ArenaError);
  return { kind: (err as ArenaError).kind, detail: (err as ArenaError).detail };
}

describe('workspaces', () => {
  it('are found again by their session, with the uid they were made for', async () => {
    await expect(findWorkspace(workspace.sessionId, settings)).resolves.toEqual(workspace);
    await expect(findWorkspace(workspace.sessionId + 1, settings)).resolves.toBeUndefined();
  });

  it('hold at most their disk quota, in bytes and in files, whoever writes', async () => {
    const small = { ...settings, quota: { bytes: 1024 * 1024, files: 64 } };
    const sessionId = workspace.sessionId + 1;
    const limited = await prepareWorkspace(sessionId, workspace.uid, [], small);
    try {
      const full = await runIsolated({
        workspace: limited,
        command: 'head -c 2000000 /dev/zero > big; echo $?; ls -l big | cut -d" " -f5',
        timeoutSeconds: 20,
        limits: settings.limits,
      });
      expect(full.stderr).toContain('No space left on device');
      expect(Number(full.stdout.trim().split('\n')[1])).toBeLessThanOrEqual(1024 * 1024);
      await runIsolated({ workspace: limited, command: 'rm big', timeoutSeconds: 20, limits: settings.limits });
      const many = await runIsolated({
        workspace: limited,
        command: 'for i in $(seq 1 100); do touch f$i 2>/dev/null || { echo stopped at $i; break; }; done',
        timeoutSeconds: 20,
        limits: settings.limits,
      });
      expect(many.stdout).toMatch(/^stopped at (\d+)\n$/);
      expect(Number(/stopped at (\d+)/.exec(many.stdout)?.[1])).toBeLessThanOrEqual(64);
      // The worker's own writes meet the same wall.
      await expect(writeWorkspaceFile(limited, 'more.txt', 'x')).rejects.toThrow(/ENOSPC/);
    } finally {
      await removeWorkspace(limited);
    }
  });

  it('are private to their session uid, inside a folder others may pass but not list', async () => {
    const stat = await fs.stat(workspace.dir);
    expect({ mode: stat.mode & 0o777, uid: stat.uid, gid: stat.gid }).toEqual({
      mode: 0o700,
      uid: workspace.uid,
      gid: workspace.uid,
    });
    expect((await fs.stat(settings.dir)).mode & 0o777).toBe(0o711);
    expect((await fs.stat(path.join(workspace.dir, 'src', 'app.py'))).uid).toBe(workspace.uid);
    expect((await fs.stat(path.join(workspace.dir, 'src'))).uid).toBe(workspace.uid);
  });

  it('start again from the given files when prepared again (a retried preparation)', async () => {
    await exec('echo leftover > left.txt');
    const again = await prepareWorkspace(
      workspace.sessionId,
      workspace.uid,
      [{ path: 'only.txt', content: 'x' }],
      settings,
    );
    expect(again).toEqual(workspace);
    expect((await listWorkspace(workspace)).map((entry) => entry.name)).toEqual(['only.txt']);
  });

  it('refuse a workspace folder the sessions could not reach', async () => {
    const closed = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-closed-'));
    try {
      await expect(prepareWorkspaceRoot(path.join(closed, 'sandbox'))).rejects.toThrow(
        `ARENA_SANDBOX_DIR ${closed}/sandbox cannot be reached by the sessions' users: ${closed} does not let others pass (mode 700); choose a folder outside it`,
      );
    } finally {
      await fs.rm(closed, { recursive: true, force: true });
    }
  });

  it('are removed whole, links inside removed and never followed', async () => {
    await exec(`ln -s ${host} out`);
    await removeWorkspace(workspace);
    await expect(findWorkspace(workspace.sessionId, settings)).resolves.toBeUndefined();
    expect(await fs.readFile(path.join(host, 'secret.txt'), 'utf8')).toBe('host secret\n');
    await expect(removeWorkspace({ ...workspace, dir: host })).rejects.toThrow('is not the workspace of session');
  });

  it('report a lost workspace as such, to the file steps and to exec alike', async () => {
    await removeWorkspace(workspace);
    await expect(readWorkspaceFile(workspace, 'README.md')).rejects.toThrow(WorkspaceLostError);
    await expect(writeWorkspaceFile(workspace, 'a.txt', 'x')).rejects.toThrow(
      `workspace lost: ${workspace.dir} is gone`,
    );
    await expect(
      runIsolated({ workspace, command: 'true', timeoutSeconds: 5, limits: settings.limits }),
    ).rejects.toThrow(WorkspaceLostError);
  });
});

describe('the file API', () => {
  it('reads text files and lists folders, by name, folders and files alike', async () => {
    await expect(readWorkspaceFile(workspace, 'src/app.py')).resolves.toEqual({
      type: 'file',
      content: 'print("hi")\n',
    });
    await expect(readWorkspaceFile(workspace, '.')).resolves.toEqual({
      type: 'dir',
      entries: [
        { name: 'README.md', type: 'file', size: 7 },
        { name: 'src', type: 'dir', size: 0 },
      ],
    });
    await expect(listWorkspace(workspace, 'src')).resolves.toEqual([{ name: 'app.py', type: 'file', size: 12 }]);
    await expect(refusal(listWorkspace(workspace, 'README.md'))).resolves.toEqual({
      kind: 'invalid',
      detail: 'README.md is not a folder',
    });
  });

  it('writes files, making their folders, owned by the session uid and usable by its commands', async () => {
    await writeWorkspaceFile(workspace, 'notes/today/plan.txt', 'step 1\n');
    await writeWorkspaceFile(workspace, 'src/app.py', 'print("bye")\n');
    expect(await exec('echo "step 2" >> notes/today/plan.txt && cat notes/today/plan.txt && python3 src/app.py')).toBe(
      'step 1\nstep 2\nbye\n',
    );
    for (const made of ['notes', 'notes/today', 'notes/today/plan.txt'])
      expect((await fs.stat(path.join(workspace.dir, made))).uid).toBe(workspace.uid);
    await writeWorkspaceFile(workspace, 'bytes.bin', new Uint8Array([104, 105]));
    await expect(readWorkspaceFile(workspace, 'bytes.bin')).resolves.toEqual({ type: 'file', content: 'hi' });
  });

  it('reads what commands wrote', async () => {
    await exec('mkdir -p build && printf "ok\\n" > build/out.txt');
    await expect(readWorkspaceFile(workspace, 'build/out.txt')).resolves.toEqual({ type: 'file', content: 'ok\n' });
  });

  it('answers what cannot be read or written with a sentence', async () => {
    const cases: Array<[() => Promise<unknown>, string, string]> = [
      [() => readWorkspaceFile(workspace, 'missing.txt'), 'not_found', 'missing.txt not found'],
      [() => readWorkspaceFile(workspace, 'nowhere/x.txt'), 'not_found', 'nowhere/x.txt not found'],
      [() => readWorkspaceFile(workspace, 'README.md/x'), 'invalid', 'README.md is not a folder'],
      [() => readWorkspaceFile(workspace, '../etc/passwd'), 'invalid', 'path must not contain a ".." segment'],
      [() => readWorkspaceFile(workspace, '/etc/passwd'), 'invalid', 'path must be relative to the workspace root'],
      [() => writeWorkspaceFile(workspace, 'src', 'x'), 'invalid', 'src is a folder'],
      [() => writeWorkspaceFile(workspace, '.', 'x'), 'invalid', 'path must name a file, not the workspace root'],
      [() => writeWorkspaceFile(workspace, 'README.md/x', 'x'), 'invalid', 'README.md is not a folder'],
      [
        () => writeWorkspaceFile(workspace, 'big.txt', 'x'.repeat(1024 * 1024 + 1)),
        'invalid',
        'content must be at most 1 MiB (1048577 bytes given)',
      ],
    ];
    for (const [attempt, kind, detail] of cases) await expect(refusal(attempt())).resolves.toEqual({ kind, detail });
  });

  it('refuses files over 1 MiB, binary files, huge folders and FIFOs, without hanging', async () => {
    await exec(
      'head -c 1048577 /dev/zero > big.txt; printf "\\377\\376" > binary.dat; mkdir many; ' +
        'cd many && seq 1 1001 | xargs touch && cd .. && mkfifo pipe',
    );
    await expect(refusal(readWorkspaceFile(workspace, 'big.txt'))).resolves.toEqual({
      kind: 'invalid',
      detail: 'big.txt is larger than 1 MiB (1048577 bytes); read it in parts with exec (head -c, sed -n)',
    });
    await expect(refusal(readWorkspaceFile(workspace, 'binary.dat'))).resolves.toMatchObject({
      detail: 'binary.dat is not UTF-8 text; look at it with exec (od -c)',
    });
    await expect(refusal(readWorkspaceFile(workspace, 'many'))).resolves.toMatchObject({
      detail: 'many holds more than 1000 entries; list it with exec (ls)',
    });
    await expect(refusal(readWorkspaceFile(workspace, 'pipe'))).resolves.toMatchObject({
      detail: 'pipe is not a regular file',
    });
    await expect(refusal(writeWorkspaceFile(workspace, 'pipe', 'x'))).resolves.toMatchObject({
      detail: 'pipe is not a regular file',
    });
  });

  it('never follows a link an agent made out of the workspace', async () => {
    const secret = path.join(host, 'secret.txt');
    await exec(`ln -s ${secret} stolen.txt && ln -s / hostroot && ln -s ${host} outside && ln -s src inside`);
    const linkRefusal = (name: string) => ({
      kind: 'invalid',
      detail: `${name} is a symbolic link; the file API does not follow links (look at it with exec)`,
    });
    await expect(refusal(readWorkspaceFile(workspace, 'stolen.txt'))).resolves.toEqual(linkRefusal('stolen.txt'));
    await expect(refusal(readWorkspaceFile(workspace, 'hostroot/etc/hostname'))).resolves.toEqual(
      linkRefusal('hostroot'),
    );
    await expect(refusal(readWorkspaceFile(workspace, 'outside'))).resolves.toEqual(linkRefusal('outside'));
    // Even a link that stays inside: the rule is simple, and exec can follow it.
    await expect(refusal(readWorkspaceFile(workspace, 'inside/app.py'))).resolves.toEqual(linkRefusal('inside'));

    await expect(refusal(writeWorkspaceFile(workspace, 'stolen.txt', 'overwritten'))).resolves.toEqual(
      linkRefusal('stolen.txt'),
    );
    await expect(refusal(writeWorkspaceFile(workspace, 'outside/planted.txt', 'x'))).resolves.toEqual(
      linkRefusal('outside'),
    );
    expect(await fs.readFile(secret, 'utf8')).toBe('host secret\n');
    expect(await fs.readdir(host)).toEqual(['secret.txt']);

    const listing = await listWorkspace(workspace);
    expect(listing.find((entry) => entry.name === 'hostroot')).toEqual({ name: 'hostroot', type: 'file', size: 1 });
  });

  it('puts the hidden tests in place over whatever the agent left there, links included', async () => {
    await exec(`ln -s ${host} .hidden-tests && ln -s ${host}/secret.txt conftest.py`);
    await copyIntoWorkspace(workspace, [
      { path: '.hidden-tests/test_app.py', content: 'hidden\n' },
      { path: 'conftest.py', content: 'ours\n' },
    ]);
    expect(await fs.readdir(host)).toEqual(['secret.txt']);
    expect(await fs.readFile(path.join(host, 'secret.txt'), 'utf8')).toBe('host secret\n');
    expect(await exec('cat .hidden-tests/test_app.py conftest.py')).toBe('hidden\nours\n');
    expect((await fs.lstat(path.join(workspace.dir, '.hidden-tests'))).isDirectory()).toBe(true);

    await exec('rm -r .hidden-tests && mkdir -p .hidden-tests/test_app.py/deep && mkfifo fifo');
    await copyIntoWorkspace(workspace, [
      { path: '.hidden-tests/test_app.py', content: 'again\n' },
      { path: 'fifo', content: 'plain\n' },
    ]);
    expect(await exec('cat .hidden-tests/test_app.py fifo')).toBe('again\nplain\n');
  });
});
