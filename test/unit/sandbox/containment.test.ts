/**
 * What an agent's command must not do, each tried for real through runIsolated in a real workspace: reach
 * the network, read the service's files or environment, write outside the workspace, see the worker's
 * processes, or take the machine down with forks, memory, CPU or output.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { SandboxSettings } from '../../../infra/config';
import { probeOf, runIsolated, WALL_TIMEOUT_EXIT_CODE, type IsolatedResult } from '../../../infra/sandbox/isolation';
import { removeWorkspace, type Workspace } from '../../../infra/sandbox/workspaces';
import { FORKER, freshWorkspace, processesOf, removeSandboxScratch, sandboxScratch } from '../../sandbox/support';

const REPO = path.resolve(__dirname, '..', '..', '..');

let settings: SandboxSettings;
let workspace: Workspace;
const others: Workspace[] = [];

beforeAll(async () => {
  settings = await sandboxScratch();
});
beforeEach(async () => {
  workspace = await freshWorkspace(settings, [{ path: 'main.py', content: 'print("ok")\n' }]);
});
afterEach(async () => {
  await removeWorkspace(workspace);
  for (const other of others.splice(0)) await removeWorkspace(other);
});
afterAll(() => removeSandboxScratch(settings));

const run = (command: string | string[], timeoutSeconds = 20, into = workspace): Promise<IsolatedResult> =>
  runIsolated({ workspace: into, command, timeoutSeconds, limits: settings.limits });

async function anotherSession(): Promise<Workspace> {
  const other = await freshWorkspace(settings);
  others.push(other);
  return other;
}

describe('a sandboxed command', () => {
  it('reaches no address: a trap listener on the host counts no connection', async () => {
    let connections = 0;
    const trap = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => trap.listen(0, '0.0.0.0', resolve));
    const { port } = trap.address() as net.AddressInfo;
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((address) => address?.family === 'IPv4' && !address.internal)?.address;
    try {
      const script = [
        'import socket, sys',
        `for host in sys.argv[1:]:`,
        '    try:',
        `        socket.create_connection((host, ${port}), timeout=3); print(host, "connected")`,
        '    except OSError as e:',
        '        print(host, "refused", e.errno)',
        'try:',
        '    socket.getaddrinfo("example.com", 80); print("resolved")',
        'except OSError:',
        '    print("no name resolution")',
      ].join('\n');
      const result = await run(['python3', '-c', script, '127.0.0.1', ...(external ? [external] : [])]);
      expect(result.stdout).not.toContain('connected');
      expect(result.stdout).toContain('127.0.0.1 refused');
      if (external) expect(result.stdout).toContain(`${external} refused`);
      expect(result.stdout).toContain('no name resolution');
      expect(connections).toBe(0);
    } finally {
      trap.close();
    }
  });

  it("sees nothing of the service's files, data folder or environment", async () => {
    const dataFolder = await fs.mkdtemp(path.join(os.tmpdir(), 'arena-data-'));
    const key = crypto.randomBytes(32).toString('hex');
    await fs.chmod(dataFolder, 0o755);
    await fs.writeFile(path.join(dataFolder, 'encryption.key'), key, { mode: 0o644 });
    const planted = process.env.ARENA_ENCRYPTION_KEY;
    process.env.ARENA_ENCRYPTION_KEY = key;
    try {
      const paths = ['/work', REPO, process.cwd(), dataFolder, path.join(dataFolder, 'encryption.key')];
      const result = await run(
        [
          `for p in ${paths.join(' ')} /root /home /etc/shadow /sys /var; do [ -e "$p" ] && echo "visible: $p"; done`,
          'ls /; ls /etc',
          'cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"; env',
        ].join('; '),
      );
      expect(result.stdout).not.toContain('visible:');
      expect(result.stdout).not.toContain(key);
      expect(result.stdout).not.toContain('ARENA_');
      const [top, etc] = result.stdout.split('\n\n');
      expect(top?.split('\n').sort()).toEqual(
        expect.arrayContaining(['bin', 'dev', 'etc', 'proc', 'tmp', 'usr', 'workspace']),
      );
      expect(top).not.toMatch(/^(root|home|work|var|sys)$/m);
      expect(etc ?? result.stdout).not.toMatch(/^(shadow|ssl|postgresql|environment)$/m);
    } finally {
      if (planted === undefined) delete process.env.ARENA_ENCRYPTION_KEY;
      else process.env.ARENA_ENCRYPTION_KEY = planted;
      await fs.rm(dataFolder, { recursive: true, force: true });
    }
  });

  it('writes nowhere but the workspace; its /tmp is its own and gone afterwards', async () => {
    const escape = `arena-escape-${crypto.randomBytes(6).toString('hex')}`;
    const result = await run(
      [
        'for f in /usr/planted /etc/passwd /planted /dev/planted; do (echo x > $f) 2>/dev/null && echo "wrote $f"; done',
        `echo x > /tmp/${escape} && echo "tmp ok"`,
        'echo x > /workspace/kept && echo "workspace ok"',
      ].join('; '),
    );
    expect(result.stdout).toBe('tmp ok\nworkspace ok\n');
    await expect(fs.access(path.join(os.tmpdir(), escape))).rejects.toThrow('ENOENT');
    await expect(fs.access(path.join('/tmp', escape))).rejects.toThrow('ENOENT');
    await expect(fs.access('/usr/planted')).rejects.toThrow('ENOENT');
    expect((await run(`cat /tmp/${escape}`)).exit_code).not.toBe(0);
  });

  it('sees only its own processes, and cannot make a user namespace of its own', async () => {
    // What ps reads, without needing ps: every process in /proc with its command name.
    const result = await run(
      'for p in /proc/[0-9]*; do echo "${p#/proc/} $(cat $p/comm)"; done; unshare -U true 2>/dev/null || echo "no user namespace"',
    );
    const lines = result.stdout.trim().split('\n');
    const processes = lines.slice(0, -1).map((line) => line.split(' '));
    // The sandbox's first shell (its PID 1) and the command's.
    expect(processes.map(([pid, command]) => [Number(pid) === 1, command])).toContainEqual([true, 'sh']);
    expect(new Set(processes.map(([, command]) => command))).toEqual(new Set(['sh']));
    expect(Math.max(...processes.map(([pid]) => Number(pid)))).toBeLessThan(20);
    expect(lines.at(-1)).toBe('no user namespace');
  });

  it('cannot fork past its process limit, and the worker and another session carry on', async () => {
    const other = await anotherSession();
    // Forks children that each wait on a pipe until the kernel refuses the next fork, says how many
    // it holds and with which error, lets them go and reaps them: the count is taken at the moment
    // the limit bites, however slowly the machine runs.
    const forking = run(['python3', '-c', FORKER], 60);
    const neighbour = await run(['python3', '-c', 'print("neighbour fine")'], 30, other);
    const worker = spawn('true');
    await expect(new Promise((resolve) => worker.on('close', resolve))).resolves.toBe(0);
    const forker = await forking;
    expect(neighbour).toMatchObject({ exit_code: 0, stdout: 'neighbour fine\n' });
    expect(forker.exit_code).toBe(0);
    const [held, error] = forker.stdout.trim().split(' ');
    expect(error).toBe('EAGAIN');
    // The limit counts every process of the session's uid: the forker, the sandbox's first shell,
    // and children of a fork just refused that are still on their way out.
    expect(Number(held)).toBeLessThanOrEqual(settings.limits.processes - 2);
    expect(Number(held)).toBeGreaterThanOrEqual(settings.limits.processes - 6);
    await expect(processesOf(workspace.uid)).resolves.toEqual([]);
    await expect(run(['python3', 'main.py'])).resolves.toMatchObject({ exit_code: 0, stdout: 'ok\n' });
  });

  it('cannot allocate 4 GB', async () => {
    const result = await run(['python3', '-c', 'b = bytearray(4 << 30); print("allocated")']);
    expect(result.stdout).not.toContain('allocated');
    expect(result.stderr).toContain('MemoryError');
    expect(result.exit_code).toBe(1);
  });

  it('is cut at its wall time when it loops forever', async () => {
    const result = await run(['python3', '-c', 'while True: pass'], 2);
    expect(result.exit_code).toBe(WALL_TIMEOUT_EXIT_CODE);
    expect(result.duration_ms).toBeLessThan(6_000);
    await expect(processesOf(workspace.uid)).resolves.toEqual([]);
  });

  it('has 100 MB of output cut at the limit, without the worker holding it', async () => {
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    try {
      const result = await run('yes 0123456789abcdef | head -c 104857600; echo done >&2', 60);
      expect(result).toMatchObject({ exit_code: 0, truncated: true, stderr: 'done\n' });
      expect(Buffer.byteLength(result.stdout)).toBe(settings.limits.outputBytes);
    } finally {
      clearInterval(sampler);
    }
    expect(peak - before).toBeLessThan(40 * 2 ** 20);
  });

  it("gets none of the worker's inherited descriptors (a folder descriptor would lead out)", async () => {
    // A worker started with a descriptor of / open, without close-on-exec, as a careless supervisor might.
    const LEAKED_FD = 200;
    const script = path.join(workspace.dir, '..', `inherit-${workspace.sessionId}.ts`);
    await fs.writeFile(
      script,
      [
        `import { checkIsolation, runIsolated } from ${JSON.stringify(path.join(REPO, 'infra/sandbox/isolation'))};`,
        `const workspace = ${JSON.stringify(workspace)};`,
        `const probe = ${JSON.stringify(probeOf(settings))};`,
        `const limits = ${JSON.stringify(settings.limits)};`,
        `const command = 'for fd in /proc/self/fd/*; do readlink $fd; done; ls /proc/self/fd/${LEAKED_FD}/ 2>&1';`,
        'checkIsolation(probe)',
        '  .then(() => runIsolated({ workspace, command, timeoutSeconds: 20, limits }))',
        '  .then((result) => process.stdout.write(JSON.stringify(result)));',
      ].join('\n'),
    );
    const root = await fs.open('/', 'r');
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        cwd: REPO,
        // Node marks its low descriptors close-on-exec at start; one past a gap keeps the flag it came with.
        stdio: ['ignore', 'pipe', 'inherit', ...Array<'ignore'>(LEAKED_FD - 3).fill('ignore'), root.fd],
      });
      let output = '';
      child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await new Promise((resolve) => child.on('close', resolve));
      const result = JSON.parse(output) as IsolatedResult;
      expect(result.stdout).not.toMatch(/^(work|root|home|boot)$/m);
      const targets = result.stdout.trim().split('\n').slice(0, -1);
      expect(targets).not.toContain('/');
      for (const target of targets) expect(target).toMatch(/^(socket:|pipe:|\/dev\/null$|\/proc\/\d+\/fd$)/);
    } finally {
      await root.close();
      await fs.rm(script, { force: true });
    }
  });
});
