/**
 * Open long-polls hold a socket each: an agent keeps only a few (a new one answers its oldest),
 * an API process takes only so many (503 with Retry-After past that), and the server itself
 * refuses connections past its limit, so no account can use up a process's descriptors.
 */
import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { startApi } from '../../api/server';
import { loadConfig, type RuntimeConfig } from '../../infra/config';
import { createTestDatabase } from '../support/test-db';
import { register, startTestApp, type TestApp } from '../support/test-app';
import { eventually } from '../support/wait';

const UNLIMITED_POLLS = { ARENA_WORK_POLL_RATE_LIMIT: '100000' };

async function openPolls(t: TestApp): Promise<number> {
  const text = (await t.app.inject({ method: 'GET', url: '/metrics' })).body;
  return Number(/^arena_long_polls_open (\d+)/m.exec(text)?.[1]);
}

async function pullAgent(t: TestApp): Promise<{ id: number; secret: { 'x-arena-secret': string } }> {
  const owner = await register(t.app);
  const agent = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'runner', mode: 'pull' },
    })
  ).json();
  return { id: agent.id, secret: { 'x-arena-secret': agent.webhook_secret } };
}

const poll = (t: TestApp, agent: { id: number; secret: Record<string, string> }, wait = 50) =>
  t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/work/next?wait=${wait}`, headers: agent.secret });

function within<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took more than ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

describe('per agent', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ...UNLIMITED_POLLS, ARENA_POLLS_PER_AGENT: '4' });
  }, 60_000);
  afterAll(() => t.close());

  it('keeps at most 4 long-polls of one agent open: 130 at once leave 4', async () => {
    const agent = await pullAgent(t);
    const answers: number[] = [];
    const polls = Array.from({ length: 130 }, () => poll(t, agent).then((res) => answers.push(res.statusCode)));
    await eventually(
      async () => (answers.length >= 126 ? true : undefined),
      '126 of the 130 long-polls to be answered',
      15_000,
    );
    expect(answers.slice(0, 126).every((status) => status === 204)).toBe(true);
    expect(await openPolls(t)).toBe(4);
    expect(answers.length).toBe(126);
    // Four short ones push those out, and end by themselves.
    await Promise.all([...polls, ...Array.from({ length: 4 }, () => poll(t, agent, 1))]);
  }, 60_000);

  it('answers the oldest one 204 at once when another arrives', async () => {
    const agent = await pullAgent(t);
    const before = await openPolls(t);
    const open: Array<Promise<{ statusCode: number }>> = [];
    for (let i = 1; i <= 4; i++) {
      open.push(poll(t, agent));
      await eventually(
        async () => ((await openPolls(t)) === before + i ? true : undefined),
        `long-poll ${i} to be waiting`,
      );
    }
    let oldestAnswered = false;
    void open[0]!.then(() => (oldestAnswered = true));
    const newest = poll(t, agent, 1);
    expect((await within(open[0]!, 10_000, 'answering the oldest long-poll')).statusCode).toBe(204);
    expect(oldestAnswered).toBe(true);
    expect((await newest).statusCode).toBe(204);
    // The newest waited its full second; the other three are still open.
    expect(await openPolls(t)).toBe(before + 3);
    // Four short ones push the three out, and end by themselves.
    await Promise.all([...Array.from({ length: 4 }, () => poll(t, agent, 1)), ...open]);
  }, 60_000);
});

describe('per API process', () => {
  it('answers 503 with Retry-After past ARENA_MAX_OPEN_POLLS, and takes polls again once some end', async () => {
    const t = await startTestApp({ ...UNLIMITED_POLLS, ARENA_MAX_OPEN_POLLS: '2' });
    try {
      const [a, b, c] = [await pullAgent(t), await pullAgent(t), await pullAgent(t)];
      const first = poll(t, a, 2);
      const second = poll(t, b, 2);
      await eventually(async () => ((await openPolls(t)) === 2 ? true : undefined), 'two long-polls to be waiting');
      const refused = await poll(t, c);
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.json()).toEqual({
        detail: 'this API process has as many long-polls open as it takes (2); poll again shortly',
      });
      await Promise.all([first, second]);
      expect((await poll(t, c, 0)).statusCode).toBe(204);
    } finally {
      await t.close();
    }
  }, 60_000);
});

describe('the server', () => {
  it('refuses connections past ARENA_MAX_CONNECTIONS', async () => {
    const db = await createTestDatabase();
    const config = loadConfig({
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: process.env.TEST_TEMPORAL_ADDRESS!,
      ARENA_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      TEMPORAL_TASK_QUEUE: `test-${randomBytes(6).toString('hex')}`,
      LOG_LEVEL: 'silent',
      PORT: '0',
      ARENA_MAX_CONNECTIONS: '3',
    }) as RuntimeConfig;
    const api = await startApi(config);
    const sockets: net.Socket[] = [];
    try {
      const { port } = new URL(api.url);
      const connect = () =>
        new Promise<net.Socket>((resolve, reject) => {
          const socket = net.connect(Number(port), '127.0.0.1', () => resolve(socket)).once('error', reject);
          sockets.push(socket);
        });
      const ask = (socket: net.Socket) =>
        new Promise<string>((resolve) => {
          let text = '';
          socket.on('data', (chunk) => (text += chunk.toString()));
          socket.once('close', () => resolve(text));
          socket.on('error', () => undefined);
          socket.write('GET /health HTTP/1.1\r\nHost: arena.test\r\nConnection: close\r\n\r\n');
        });
      const held = [await connect(), await connect(), await connect()];
      // The fourth is closed without an answer; the three held ones are still served.
      expect(await ask(await connect())).toBe('');
      expect(await ask(held[0]!)).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await api.close();
      await db.drop();
    }
  }, 60_000);
});
