/**
 * Containment as an agent meets it: through a session's `exec` step on the real app and worker.
 * The limits are proved in detail command by command in containment.test.ts; here the same
 * sandbox is shown to be what the API's steps run in, and its limits to leave the worker and the
 * other sessions unharmed.
 */
import fs from 'node:fs';
import net from 'node:net';
import type { TestApp } from '../support/test-app';
import { codingWork, startCodingArena, stepOf, type CodingArena, type CodingWork } from './coding-support';
import { FORKER } from './support';

let arena: CodingArena;
let t: TestApp;
let work: CodingWork;
let sandboxDir: string;
let trap: net.Server;
let trapPort: number;
let trapped = 0;

beforeAll(async () => {
  trap = net.createServer((socket) => {
    trapped++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
  trapPort = (trap.address() as net.AddressInfo).port;
  arena = await startCodingArena({ ARENA_GYM_RETRY_SECONDS: '3600' }, 'escape');
  ({ t, sandboxDir } = arena);
  const { owner, agent } = arena;
  const started = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${agent.id}/sandbox`,
    headers: owner.auth,
    payload: { task: 'python/leap-year' },
  });
  work = await codingWork(t, agent, started.json().id);
});
afterAll(async () => {
  await arena.close();
  await new Promise((resolve) => trap.close(resolve));
});

const execIn = async (session: CodingWork, command: string | string[], timeoutSeconds?: number) => {
  const res = await stepOf(t, session.sandbox)('POST', 'exec', {
    command,
    ...(timeoutSeconds === undefined ? {} : { timeout_seconds: timeoutSeconds }),
  });
  expect(res.statusCode).toBe(200);
  return res.json() as { exit_code: number; stdout: string; stderr: string; truncated: boolean };
};
const exec = (command: string | string[], timeoutSeconds?: number) => execIn(work, command, timeoutSeconds);

it("reaches no address: a listener on the worker's loopback counts no connection", async () => {
  const ran = await exec([
    'python3',
    '-c',
    `import socket\ntry:\n  socket.create_connection(('127.0.0.1', ${trapPort}), timeout=3)\n  print('connected')\nexcept OSError as e:\n  print('refused', e)`,
  ]);
  expect(ran.stdout).toMatch(/^refused/);
  expect(trapped).toBe(0);
});

it("sees none of the service's source, data, environment or processes", async () => {
  expect((await exec(`ls ${process.cwd()}`)).exit_code).not.toBe(0);
  expect((await exec(`ls ${sandboxDir}`)).exit_code).not.toBe(0);
  const env = await exec('env');
  expect(env.stdout).not.toMatch(/ARENA_|DATABASE_URL|TEMPORAL_/);
  const processes = await exec('ls /proc | grep -E "^[0-9]+$" | wc -l');
  expect(Number(processes.stdout.trim())).toBeLessThan(10);
  expect((await exec('cat /proc/1/cmdline | tr "\\0" " "')).stdout).not.toContain('jest');
});

it('writes only inside its workspace', async () => {
  const outside = await exec('touch /usr/escaped 2>&1; touch /etc/escaped 2>&1; echo done');
  expect(outside.stdout).toMatch(/Read-only file system/);
  expect(fs.existsSync('/usr/escaped')).toBe(false);
  expect(fs.existsSync('/etc/escaped')).toBe(false);
  expect((await exec('echo inside > note.txt && cat note.txt')).stdout).toBe('inside\n');
});

it('cuts a fork bomb at its process limit, a 4 GB allocation, an endless loop and 100 MB of output; the worker and another session go on', async () => {
  const started = await t.app.inject({
    method: 'POST',
    url: `/api/agents/${arena.agent.id}/sandbox`,
    headers: arena.owner.auth,
    payload: { task: 'javascript/lru-cache' },
  });
  const neighbour = await codingWork(t, arena.agent, started.json().id);

  const forker = await exec(['python3', '-c', FORKER], 30);
  expect(forker.stdout).toMatch(/^\d+ EAGAIN\n$/);
  expect(Number(forker.stdout.split(' ')[0])).toBeGreaterThanOrEqual(t.config.sandbox.limits.processes - 6);
  const memory = await exec(['python3', '-c', 'b = bytearray(4 << 30); print("allocated")']);
  expect(memory.stdout).not.toContain('allocated');
  expect(memory.stderr).toContain('MemoryError');
  const loop = await exec(['python3', '-c', 'while True: pass'], 2);
  expect(loop.exit_code).toBe(124);
  const flood = await exec('yes 0123456789abcdef | head -c 104857600', 60);
  expect(flood).toMatchObject({ exit_code: 0, truncated: true });
  expect(flood.stdout.length).toBeLessThan(104857600);

  expect((await execIn(neighbour, 'echo neighbour fine')).stdout).toBe('neighbour fine\n');
  expect((await exec('echo still here')).stdout).toBe('still here\n');
}, 120_000);
