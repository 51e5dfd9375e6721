import { RUNNER_VERSION } from '../../infra/runner-package';
import { spawn, type ChildProcess } from 'node:child_process';
import { Client } from '@temporalio/client';
import { deliveryWorkflowId } from '../../workflows/contracts';
import { RUNNER_FROM_SOURCE } from '../runner/support/cli';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';

// The real runner (the CLI an owner starts with `npx arena-runner`) drives a real agent command
// against the real API on a real port, with real workflows behind it.
const AGENT = `
let input = '';
process.stdin.on('data', (c) => (input += c));
process.stdin.on('end', () => {
  const payload = JSON.parse(input);
  if (process.env.ARENA_PROMPT !== payload.prompt || process.env.TESSERAX_PROMPT_ID !== String(payload.prompt_id)) process.exit(3);
  process.stdout.write('  answer to ' + payload.category + ' (' + process.env.ARENA_KIND + ')\\n');
});`;

let t: TestApp;
let client: Client;
let owner: Registered;
let baseUrl: string;
let runner: ChildProcess | undefined;
let runnerLog = '';

beforeAll(async () => {
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1' }, { pastTheGym: false });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  owner = await register(t.app);
  await t.startWorker();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  runner?.kill('SIGKILL');
  await t.close();
});

it('answers the gym and a sandbox task through arena-runner, then stops cleanly on SIGINT', async () => {
  const agent = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'runner-driven', mode: 'pull' },
    })
  ).json();
  // run_command shows exactly how to run it; the placeholders are filled in here.
  const words = agent.run_command
    .replace('<AGENT_SECRET>', agent.webhook_secret)
    .replace('<your-agent-command>', 'AGENT')
    .split(' ');
  // npx runs the runner the arena serves; here the same runner runs from its sources.
  expect(words.slice(0, 7)).toEqual([
    'npx',
    '--yes',
    '--package',
    `http://arena.test/downloads/arena-runner-${RUNNER_VERSION}.tgz`,
    'arena-runner',
    'run',
    '--base-url',
  ]);
  const cliArgs = words.slice(5).map((a: string) => (a === 'http://arena.test' ? baseUrl : a));
  const commandAt = cliArgs.indexOf('AGENT');
  cliArgs.splice(commandAt, 1, process.execPath, '-e', AGENT);
  const [node, ...entry] = RUNNER_FROM_SOURCE;
  runner = spawn(node!, [...entry, ...cliArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  runner.stdout!.on('data', (c) => (runnerLog += c));
  runner.stderr!.on('data', (c) => (runnerLog += c));

  await client.workflow.getHandle(`gym-${agent.id}-1`).result();
  const detail = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}`, headers: owner.auth })).json();
  expect(detail.gym).toMatchObject({ total: 6, done: 6, errors: 0, gym_complete: true });

  const task = (
    await t.app.inject({
      method: 'POST',
      url: `/api/agents/${agent.id}/sandbox`,
      headers: owner.auth,
      payload: { prompt: 'hello', category: 'greeting' },
    })
  ).json();
  expect(await client.workflow.getHandle(deliveryWorkflowId(Number(task.id.split('-')[1]))).result()).toEqual({
    status: 'answered',
  });
  const feed = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=10` })).json();
  expect(feed.total).toBe(7);
  expect(feed.sessions[0]).toMatchObject({ id: task.id, status: 'answered', response: 'answer to greeting (sandbox)' });
  expect(
    feed.sessions
      .slice(1)
      .every(
        (s: { status: string; response: string }) =>
          s.status === 'answered' && /^answer to gym-.* \(gym\)$/.test(s.response),
      ),
  ).toBe(true);

  const exited = new Promise<number | null>((resolve) => runner!.once('exit', (code) => resolve(code)));
  runner.kill('SIGINT');
  expect(await exited).toBe(0);
  expect(runnerLog).not.toContain(agent.webhook_secret);
});
