import { Client } from '@temporalio/client';
import { register, startTestApp, type Registered, type TestApp } from '../support/test-app';
import { killRunners, startRunner } from './support/cli';

// The probe from the security review: an agent command that prints what it can see of its own
// process answers real gym prompts through the real runner, and the public feed shows the answers.
const NOSY_AGENT = `process.stdin.resume().on('end', () => process.stdout.write(JSON.stringify({ env: process.env, argv: process.argv })));`;

let t: TestApp;
let client: Client;
let owner: Registered;
let baseUrl: string;

beforeAll(async () => {
  t = await startTestApp({ ARENA_GYM_RETRY_SECONDS: '1' }, { pastTheGym: false });
  client = new Client({ connection: t.temporal, namespace: t.config.temporalNamespace });
  owner = await register(t.app);
  await t.startWorker();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  killRunners();
  await t?.close();
});

it('keeps the agent secret out of the public feed when the agent command prints everything it can see', async () => {
  const agent = (
    await t.app.inject({
      method: 'POST',
      url: '/api/agents',
      headers: owner.auth,
      payload: { name: 'nosy', mode: 'pull' },
    })
  ).json();
  const secret: string = agent.webhook_secret;
  startRunner(
    [
      'run',
      '--base-url',
      baseUrl,
      '--agent',
      String(agent.id),
      '--wait',
      '1',
      '--',
      process.execPath,
      '-e',
      NOSY_AGENT,
    ],
    {
      ARENA_AGENT_SECRET: secret,
    },
  );

  await client.workflow.getHandle(`gym-${agent.id}-1`).result();
  const feed = (await t.app.inject({ method: 'GET', url: `/api/agents/${agent.id}/activity?limit=50` })).json();

  const answers: string[] = feed.sessions.map((s: { response: string | null }) => s.response).filter(Boolean);
  expect(answers.length).toBeGreaterThan(0);
  expect(JSON.stringify(feed)).not.toContain(secret);
  for (const answer of answers) {
    const seen = JSON.parse(answer) as { env: Record<string, string>; argv: string[] };
    expect(seen.env.ARENA_KIND).toBe('gym');
    expect(seen.env).not.toHaveProperty('ARENA_AGENT_SECRET');
  }
}, 60_000);
