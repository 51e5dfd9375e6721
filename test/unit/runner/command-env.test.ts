import { BASIC_VARIABLES, commandEnvironment } from '../../../runner/src/command-env';

const secret = 'agsec_command_env_secret';
const runnerEnv = {
  PATH: '/usr/local/bin:/usr/bin',
  HOME: '/home/owner',
  LANG: 'en_GB.UTF-8',
  LC_ALL: 'en_GB.UTF-8',
  LC_TIME: 'C',
  TZ: 'Europe/London',
  TMPDIR: '/tmp/owner',
  ARENA_AGENT_SECRET: secret,
  ARENA_BASE_URL: 'https://arena.example',
  OPENAI_API_KEY: 'sk-owner',
  AWS_SECRET_ACCESS_KEY: 'aws-owner',
  HTTPS_PROXY: 'http://user:password@proxy:3128',
  DATABASE_URL: 'postgres://owner:pw@db/app',
};

describe('commandEnvironment', () => {
  it('passes the basics and nothing else of the runner environment', () => {
    expect(commandEnvironment(runnerEnv, { secret })).toEqual({
      PATH: '/usr/local/bin:/usr/bin',
      HOME: '/home/owner',
      LANG: 'en_GB.UTF-8',
      LC_ALL: 'en_GB.UTF-8',
      LC_TIME: 'C',
      TZ: 'Europe/London',
      TMPDIR: '/tmp/owner',
    });
  });

  it('adds the variables the owner names', () => {
    expect(commandEnvironment(runnerEnv, { secret, pass: ['OPENAI_API_KEY', 'HTTPS_PROXY'] })).toMatchObject({
      OPENAI_API_KEY: 'sk-owner',
      HTTPS_PROXY: 'http://user:password@proxy:3128',
    });
  });

  it('never passes the secret: not its variable, not under another name, not inside a basic one', () => {
    expect(() => commandEnvironment(runnerEnv, { secret, pass: ['ARENA_AGENT_SECRET'] })).toThrow(
      '--env ARENA_AGENT_SECRET: the agent secret is never passed to the command',
    );
    expect(() =>
      commandEnvironment({ ...runnerEnv, TESSERAX_SECRET: secret }, { secret, pass: ['TESSERAX_SECRET'] }),
    ).toThrow('--env TESSERAX_SECRET: it holds the agent secret, which is never passed to the command');
    const env = commandEnvironment({ ...runnerEnv, HOME: `/home/${secret}` }, { secret });
    expect(env).not.toHaveProperty('HOME');
    expect(JSON.stringify(env)).not.toContain(secret);
  });

  it('refuses a name that is not set, rather than running the command without it', () => {
    expect(() => commandEnvironment(runnerEnv, { secret, pass: ['ANTHROPIC_API_KEY'] })).toThrow(
      '--env ANTHROPIC_API_KEY: not set in the runner environment',
    );
  });

  it('lists no variable that usually holds a credential', () => {
    expect(BASIC_VARIABLES.filter((name) => /KEY|TOKEN|SECRET|PASSWORD|PROXY|_URL$/i.test(name))).toEqual([]);
  });
});
