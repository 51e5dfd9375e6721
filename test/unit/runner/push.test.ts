import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { signatureHeaders, signBody } from '../../../runner/src/signing';
import { startPushServer, type PushServer } from '../../../runner/src/push';
import { verifySignature, SIGNATURE_HEADER, TIMESTAMPED_SIGNATURE_HEADER } from '../../../runner/src/verify';
import { nodeScript } from '../../runner/support/wait';
import { until } from '../../support/wait';

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
    require('node:fs').appendFileSync(${JSON.stringify(mark)}, 'ran\\n');
    let input = '';
    process.stdin.on('data', (c) => (input += c)).on('end', () => {
      const payload = JSON.parse(input);
      if (payload.prompt === 'fail') { console.error('cannot answer that'); process.exit(4); }
      console.log('answer to ' + payload.prompt + ' [' + process.env.ARENA_WORK_ID + ' ' + process.env.ARENA_KIND + ']');
    });`);
}

async function start(lines: string[] = [], toleranceSeconds?: number): Promise<PushServer> {
  const server = await startPushServer({
    secret,
    command: agent(),
    port: 0,
    toleranceSeconds,
    log: (line) => lines.push(line),
  });
  servers.push(server);
  return server;
}

async function deliver(url: string, body: string, headers: Record<string, string>) {
  const res = await request(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.statusCode, body: (await res.body.json()) as Record<string, unknown> };
}

const prompt = (text: string) =>
  JSON.stringify({ prompt_id: 'p-3', prompt: text, category: 'chat', deadline_seconds: 10 });
const nowSeconds = () => Math.floor(Date.now() / 1000);
const signed = (body: string, deliveryId = 'main-230', timestamp = nowSeconds()) =>
  signatureHeaders(secret, body, { deliveryId, timestamp });
const runs = async () =>
  (await fs.readFile(path.join(dir, 'ran'), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;

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

  it('refuses the plain signature alone with 401: without a signed timestamp a captured request could be replayed forever', async () => {
    const server = await start();
    const body = prompt('hello');
    expect(await deliver(server.url, body, { 'X-Arena-Signature': signBody(secret, body) })).toEqual({
      status: 401,
      body: { detail: 'missing timestamped signature: send X-Arena-Timestamp and X-Arena-Signature-Timestamped' },
    });
    expect(await runs()).toBe(0);
  });

  it('refuses a bad or missing signature with 401 without running the command', async () => {
    const server = await start();
    const body = prompt('hello');
    expect(await deliver(server.url, body, { 'X-Arena-Signature': signBody('agsec_other', body) })).toEqual({
      status: 401,
      body: { detail: 'invalid signature' },
    });
    expect(await deliver(server.url, body, {})).toEqual({ status: 401, body: { detail: 'invalid signature' } });
    expect(await runs()).toBe(0);
  });

  it('answers the connectivity ping with pong without running the command', async () => {
    const server = await start();
    const ping = JSON.stringify({ prompt_id: 'ping-1', prompt: 'ping', category: 'ping', deadline_seconds: 15 });
    expect(await deliver(server.url, ping, signed(ping, 'ping-1'))).toEqual({
      status: 200,
      body: { response: 'pong' },
    });
    expect(await runs()).toBe(0);
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
    const huge = JSON.stringify({
      prompt_id: 'p',
      prompt: 'x'.repeat(1024 * 1024),
      category: 'c',
      deadline_seconds: 5,
    });
    expect((await deliver(server.url, huge, signed(huge))).status).toBe(413);
    const notPrompt = JSON.stringify({ hello: 'world' });
    expect(await deliver(server.url, notPrompt, signed(notPrompt))).toEqual({
      status: 400,
      body: { detail: 'not a prompt payload: prompt_id is missing' },
    });
  });

  it('refuses a delivery signed in 2001 with 401, however often it is sent', async () => {
    const lines: string[] = [];
    const server = await start(lines);
    const body = prompt('old news');
    const headers = signed(body, 'main-7', 978307200);
    const stale = {
      status: 401,
      body: { detail: "timestamp outside the 300 s tolerance: a replay, or this machine's clock is wrong" },
    };

    expect(await deliver(server.url, body, headers)).toEqual(stale);
    expect(await deliver(server.url, body, headers)).toEqual(stale);

    expect(await runs()).toBe(0);
    expect(lines).toContain(
      "main-7: refused: timestamp outside the 300 s tolerance: a replay, or this machine's clock is wrong",
    );
  });

  it('refuses a timestamp too far in the future, and a wrong timestamped signature, with 401', async () => {
    const server = await start();
    const body = prompt('hello');
    expect((await deliver(server.url, body, signed(body, 'main-8', nowSeconds() + 330))).status).toBe(401);
    const forged = {
      ...signed(body, 'main-9'),
      'X-Arena-Signature-Timestamped': signatureHeaders('agsec_other', body, {
        deliveryId: 'main-9',
        timestamp: nowSeconds(),
      })['X-Arena-Signature-Timestamped']!,
    };
    expect(await deliver(server.url, body, forged)).toEqual({ status: 401, body: { detail: 'invalid signature' } });
    expect(await runs()).toBe(0);
  });

  it('takes its tolerance from the option: a minute-old delivery passes 300 s and is refused at 30 s', async () => {
    const body = prompt('a minute ago');
    const lenient = await start();
    expect((await deliver(lenient.url, body, signed(body, 'main-10', nowSeconds() - 60))).status).toBe(200);
    const strict = await start([], 30);
    expect(await deliver(strict.url, body, signed(body, 'main-11', nowSeconds() - 60))).toEqual({
      status: 401,
      body: { detail: "timestamp outside the 30 s tolerance: a replay, or this machine's clock is wrong" },
    });
  });

  it('answers a delivery once and refuses it again with 409, also under another delivery id', async () => {
    const lines: string[] = [];
    const server = await start(lines);
    const body = prompt('once only');
    const headers = signed(body, 'main-12');
    const replayed = { status: 409, body: { detail: 'this delivery was already received; a replay is refused' } };

    expect(await deliver(server.url, body, headers)).toEqual({
      status: 200,
      body: { response: 'answer to once only [main-12 main]' },
    });
    expect(await deliver(server.url, body, headers)).toEqual(replayed);
    // X-Arena-Delivery is not signed, so a replay may come with any id.
    expect(await deliver(server.url, body, { ...headers, 'X-Arena-Delivery': 'main-13' })).toEqual(replayed);
    const { 'X-Arena-Delivery': _id, ...withoutId } = headers;
    expect(await deliver(server.url, body, withoutId)).toEqual(replayed);

    expect(await runs()).toBe(1);
    expect(lines).toContain('main-12: refused: this delivery was already received; a replay is refused');
  });

  it('refuses a delivery id it already answered, even freshly signed', async () => {
    const server = await start();
    const first = prompt('first');
    expect((await deliver(server.url, first, signed(first, 'gym-4'))).status).toBe(200);
    const second = prompt('second');
    expect((await deliver(server.url, second, signed(second, 'gym-4'))).status).toBe(409);
    expect((await deliver(server.url, second, signed(second, 'gym-5'))).status).toBe(200);
    expect(await runs()).toBe(2);
  });

  it('runs a delivery sent twice at once only once', async () => {
    const server = await start();
    const body = prompt('racing');
    const headers = signed(body, 'main-14');
    const statuses = (await Promise.all([deliver(server.url, body, headers), deliver(server.url, body, headers)])).map(
      (r) => r.status,
    );
    expect(statuses.sort()).toEqual([200, 409]);
    expect(await runs()).toBe(1);
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
