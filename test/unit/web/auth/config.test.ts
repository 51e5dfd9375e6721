import { ConfigError, loadConfig } from '../../../../infra/config';

const OIDC = {
  ARENA_OIDC_ISSUER: 'https://id.example.org',
  ARENA_OIDC_CLIENT_ID: 'arena',
  ARENA_OIDC_CLIENT_SECRET: 's3cret',
};

describe('website sign-in configuration', () => {
  it('defaults to 30-day sessions, 10 log-in attempts per address and no identity provider', () => {
    const config = loadConfig({});
    expect(config.sessionDays).toBe(30);
    expect(config.loginRateLimit).toBe(10);
    expect(config.oidc).toBeUndefined();
  });

  it('enables the identity provider when all three variables are set', () => {
    expect(loadConfig({ ...OIDC, ARENA_SESSION_DAYS: '7', ARENA_LOGIN_RATE_LIMIT: '5' })).toMatchObject({
      sessionDays: 7,
      loginRateLimit: 5,
      oidc: { issuer: 'https://id.example.org', clientId: 'arena', clientSecret: 's3cret' },
    });
  });

  it('counts empty variables as unset', () => {
    expect(
      loadConfig({ ARENA_OIDC_ISSUER: '', ARENA_OIDC_CLIENT_ID: '', ARENA_OIDC_CLIENT_SECRET: '' }).oidc,
    ).toBeUndefined();
  });

  it.each([
    [
      'ARENA_OIDC_CLIENT_SECRET',
      { ARENA_OIDC_ISSUER: OIDC.ARENA_OIDC_ISSUER, ARENA_OIDC_CLIENT_ID: 'arena' },
      ['ARENA_OIDC_CLIENT_SECRET'],
    ],
    [
      'the client id and secret',
      { ARENA_OIDC_ISSUER: OIDC.ARENA_OIDC_ISSUER },
      ['ARENA_OIDC_CLIENT_ID', 'ARENA_OIDC_CLIENT_SECRET'],
    ],
    ['the issuer', { ARENA_OIDC_CLIENT_ID: 'arena', ARENA_OIDC_CLIENT_SECRET: 's3cret' }, ['ARENA_OIDC_ISSUER']],
  ])('refuses a partial set-up, naming what is missing: %s', (_label, env, missing) => {
    let message = '';
    try {
      loadConfig(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    for (const name of missing)
      expect(message).toContain(
        `${name}: missing: set ARENA_OIDC_ISSUER, ARENA_OIDC_CLIENT_ID, ARENA_OIDC_CLIENT_SECRET together`,
      );
    const present = ['ARENA_OIDC_ISSUER', 'ARENA_OIDC_CLIENT_ID', 'ARENA_OIDC_CLIENT_SECRET'].filter(
      (n) => !missing.includes(n),
    );
    for (const name of present) expect(message).not.toContain(`${name}: missing`);
  });

  it('takes plain http for a provider only on localhost', () => {
    expect(loadConfig({ ...OIDC, ARENA_OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer).toBe(
      'http://127.0.0.1:9000',
    );
    expect(loadConfig({ ...OIDC, ARENA_OIDC_ISSUER: 'http://localhost:9000/realms/arena' }).oidc?.issuer).toBe(
      'http://localhost:9000/realms/arena',
    );
    expect(() => loadConfig({ ...OIDC, ARENA_OIDC_ISSUER: 'http://id.example.org' })).toThrow(
      /ARENA_OIDC_ISSUER: must be https \(plain http only for localhost\)/,
    );
  });

  it('bounds the session length', () => {
    expect(() => loadConfig({ ARENA_SESSION_DAYS: '0' })).toThrow(/ARENA_SESSION_DAYS/);
    expect(() => loadConfig({ ARENA_SESSION_DAYS: '400' })).toThrow(/ARENA_SESSION_DAYS: must be at most 365/);
  });
});
