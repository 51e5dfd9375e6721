import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { signatureHeaders, signBody } from '../../infra/webhook/signing';
import { startPushServer, type PushServer } from '../../runner/push';
import { verifySignature, SIGNATURE_HEADER, TIMESTAMPED_SIGNATURE_HEADER } from '../../runner/verify';
import { nodeScript, until } from './support/wait';

const secret = 'agsec_push_test_secret';
let servers: PushServer[] = [];
let dir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'runner-push-'));
});

afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  await fs.rm(dir, { recursive: true, force: true });
});

// Leaves a mark when it runs, answers with what it saw, or fails when the prompt says so.
function agent(): ReturnType<typeof nodeScript> {
  const mark = path.join(dir, 'ran');
  return nodeScript(`
    require('node:fs').writeFileSync(${JSON.stringify(mark)}, 'yes');
    let input = '';
    process.stdin.on('data', (c) => (input += c)).on('end', () => {
      const payload = JSON.parse(input);
      if (payload.prompt === 'fail') { console.error('cannot answer that'); process.exit(4); }
      console.log('answer to ' + payload.prompt + ' [' + process.env.ARENA_WORK_ID + ' ' + process.env.ARENA_KIND + ']');
    });`);
}

async function start(lines: string[] = []): Promise<PushServer> {
  const server = await startPushServer({ secret, command: agent(), port: 0, log: (line) => lines.push(line) });
  servers.push(server);
  return server;
}

async function deliver(url: string, body: string, headers: Record<string, string>) {
  const res = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

const prompt = (text: string) => JSON.stringify({ prompt_id: 'p-3', prompt: text, category: 'chat', deadline_seconds: 10 });
const signed = (body: string, deliveryId = 'main-230') => signatureHeaders(secret, body, { deliveryId, timestamp: Math.floor(Date.now() / 1000) });

describe('startPushServer', () => {
  it('answers a correctly signed prompt with the command output', async () => {
    const lines: string[] = [];
    const server = await start(lines);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const body = prompt('What is Elo?');

    const res = await deliver(`${server.url}hook/any/path`, body, signed(body));

    expect(res).toEqual({ status: 200, body: { response: 'answer to What is Elo? [main-230 main]' } });
    expect(lines).toContainEqual(expect.stringMatching(/^main-230: answered in \d+ ms$/));
  });

  it('accepts the plain signature alone, as the original service sent it', async () => {
    const server = await start();
    const body = prompt('hello');
    const res = await deliver(server.url, body, { 'X-Arena-Signature': signBody(secret, body) });
    expect(res).toEqual({ status: 200, body: { response: 'answer to hello [undefined undefined]' } });
  });

  it('refuses a bad or missing signature with 401 without running the command', async () => {
    const server = await start();
    const body = prompt('hello');
    expect(await deliver(server.url, body, { 'X-Arena-Signature': signBody('agsec_other', body) })).toEqual({
      status: 401,
      body: { detail: 'invalid signature' },
    });
    expect(await deliver(server.url, body, {})).toEqual({ status: 401, body: { detail: 'invalid signature' } });
    await expect(fs.access(path.join(dir, 'ran'))).rejects.toThrow();
  });

  it('answers the connectivity ping with pong without running the command', async () => {
    const server = await start();
    const ping = JSON.stringify({ prompt_id: 'ping-1', prompt: 'ping', category: 'ping', deadline_seconds: 15 });
    expect(await deliver(server.url, ping, signed(ping, 'ping-1'))).toEqual({ status: 200, body: { response: 'pong' } });
    await expect(fs.access(path.join(dir, 'ran'))).rejects.toThrow();
  });

  it('answers 500 with the adapter error when the command fails', async () => {
    const server = await start();
    const body = prompt('fail');
    expect(await deliver(server.url, body, signed(body))).toEqual({
      status: 500,
      body: { detail: 'command exited with code 4: cannot answer that' },
    });
  });

  it('refuses a body over 1 MiB with 413, and a signed body that is not a prompt with 400', async () => {
    const server = await start();
    const huge = JSON.stringify({ prompt_id: 'p', prompt: 'x'.repeat(1024 * 1024), category: 'c', deadline_seconds: 5 });
    expect((await deliver(server.url, huge, signed(huge))).status).toBe(413);
    const notPrompt = JSON.stringify({ hello: 'world' });
    expect(await deliver(server.url, notPrompt, signed(notPrompt))).toEqual({ status: 400, body: { detail: 'not a prompt payload: prompt_id is missing' } });
  });

  it('lets a running prompt finish when closed', async () => {
    const lines: string[] = [];
    const slow = await startPushServer({
      secret,
      command: nodeScript(`setTimeout(() => console.log('late but there'), 600)`),
      port: 0,
      log: (line) => lines.push(line),
    });
    const body = prompt('slow');
    const answered = deliver(slow.url, body, signed(body));
    await until(() => lines.some((l) => l.startsWith('main-230: received prompt')), 'the prompt to start');

    await slow.close();

    expect(await answered).toEqual({ status: 200, body: { response: 'late but there' } });
    expect(lines).toContain('stopping: finishing 1 running prompt first');
  });
});

describe('runner/verify', () => {
  it('re-exports the signature check with its header names', () => {
    const body = prompt('check me');
    const headers = signed(body);
    expect(SIGNATURE_HEADER).toBe('X-Arena-Signature');
    expect(TIMESTAMPED_SIGNATURE_HEADER).toBe('X-Arena-Signature-Timestamped');
    expect(verifySignature(secret, headers, body, { requireTimestamp: true, toleranceSeconds: 300 })).toBe(true);
    expect(verifySignature(secret, headers, `${body} `)).toBe(false);
  });
});
