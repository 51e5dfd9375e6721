import path from 'node:path';
import { temporalConnectionOptions, ConfigError, loadConfig, requireRuntime } from '../../../infra/config';

describe('loadConfig', () => {
  it('connects to Temporal with TLS and an API key when one is given (Temporal Cloud), plainly otherwise', () => {
    expect(temporalConnectionOptions(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233' }))).toEqual({
      address: 'temporal:7233',
    });
    expect(
      temporalConnectionOptions(
        loadConfig({ TEMPORAL_ADDRESS: 'ns.a1b2c.tmprl.cloud:7233', TEMPORAL_API_KEY: 'key-1' }),
      ),
    ).toEqual({
      address: 'ns.a1b2c.tmprl.cloud:7233',
      tls: true,
      apiKey: 'key-1',
    });
    expect(temporalConnectionOptions(loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_TLS: 'true' }))).toEqual({
      address: 'temporal:7233',
      tls: true,
    });
    expect(() => temporalConnectionOptions(loadConfig({}))).toThrow('TEMPORAL_ADDRESS is not set');
  });

  it('has defaults that suit the embedded stack', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir: path.resolve('.arena'),
      temporalPort: 7233,
      temporalUiPort: 8233,
      temporalNamespace: 'default',
      taskQueue: 'arena',
      publicUrl: 'http://localhost:3000',
      allowPrivateWebhooks: true,
    });
    expect(config.databaseUrl).toBeUndefined();
    expect(config.encryptionKey).toBeUndefined();
  });

  it("reads how long a dead worker's work waits: its sticky queue (10 s) and a workspace's pickup (20 s)", () => {
    expect(loadConfig({})).toMatchObject({ stickyQueueSeconds: 10, sandbox: { pickupSeconds: 20 } });
    expect(loadConfig({ ARENA_STICKY_QUEUE_SECONDS: '2', ARENA_WORKSPACE_PICKUP_SECONDS: '5' })).toMatchObject({
      stickyQueueSeconds: 2,
      sandbox: { pickupSeconds: 5 },
    });
    expect(() => loadConfig({ ARENA_WORKSPACE_PICKUP_SECONDS: '0' })).toThrow(/ARENA_WORKSPACE_PICKUP_SECONDS/);
    expect(() => loadConfig({ ARENA_STICKY_QUEUE_SECONDS: '301' })).toThrow(
      /ARENA_STICKY_QUEUE_SECONDS: must be at most 300/,
    );
  });

  it('turns the private-webhook guard on by default outside the embedded stack', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db/arena' }).allowPrivateWebhooks).toBe(false);
    expect(
      loadConfig({ TEMPORAL_ADDRESS: 'temporal:7233', ARENA_ALLOW_PRIVATE_WEBHOOKS: 'true' }).allowPrivateWebhooks,
    ).toBe(true);
  });

  it('treats empty variables as unset and trims the public URL', () => {
    expect(loadConfig({ PORT: '', ARENA_PUBLIC_URL: 'https://arena.example/' })).toMatchObject({
      port: 3000,
      publicUrl: 'https://arena.example',
    });
  });

  it('reads the judging settings: pairs per answer, votes per pair, days in judging', () => {
    expect(loadConfig({}).arena).toMatchObject({ pairsPerAnswer: 4, votesPerPair: 3, judgingDays: 7 });
    expect(
      loadConfig({ ARENA_PAIRS_PER_ANSWER: '2', ARENA_VOTES_PER_PAIR: '5', ARENA_JUDGING_DAYS: '1' }).arena,
    ).toMatchObject({ pairsPerAnswer: 2, votesPerPair: 5, judgingDays: 1 });
  });

  it.each([
    ['ARENA_PAIRS_PER_ANSWER', '0'],
    ['ARENA_VOTES_PER_PAIR', 'three'],
    ['ARENA_JUDGING_DAYS', '400'],
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['DATABASE_URL', 'mysql://x/y'],
    ['TEMPORAL_ADDRESS', 'no-port'],
    ['ARENA_PUBLIC_URL', 'ftp://x'],
    ['ARENA_ALLOW_PRIVATE_WEBHOOKS', 'maybe'],
    ['ARENA_ENCRYPTION_KEY', 'short'],
    ['LOG_LEVEL', 'loud'],
  ])('stops with a message naming %s for %j', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(name));
  });

  it('requireRuntime names what a separate process is missing', () => {
    expect(() => requireRuntime(loadConfig({}), ['database', 'temporal', 'key'])).toThrow(
      /DATABASE_URL, TEMPORAL_ADDRESS, ARENA_ENCRYPTION_KEY/,
    );
    const key = 'ab'.repeat(32);
    const ok = requireRuntime(
      loadConfig({ DATABASE_URL: 'postgres://u@db/a', TEMPORAL_ADDRESS: 't:7233', ARENA_ENCRYPTION_KEY: key }),
      ['database', 'temporal', 'key'],
    );
    expect(ok.encryptionKey).toHaveLength(32);
  });
});
