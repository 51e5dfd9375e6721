/**
 * The tests' Jest environment (test/support/environment.js) disables the AsyncLocalStorage
 * instances a test file enabled when the file ends: Node walks every enabled storage at each
 * promise a process makes, and a Jest worker runs many files.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const ArenaTestEnvironment = require('../support/environment.js') as new (
  config: object,
  context: object,
) => { setup(): Promise<void>; teardown(): Promise<void> };

function environment() {
  return new ArenaTestEnvironment(
    { globalConfig: {}, projectConfig: { testEnvironmentOptions: {}, globals: {} } },
    { console, docblockPragmas: {}, testPath: __filename },
  );
}

it('disables at teardown the storages enabled since the file began, and leaves a storage nobody used alone', async () => {
  const env = environment();
  await env.setup();
  const used = new AsyncLocalStorage<string>();
  const unused = new AsyncLocalStorage<string>();
  used.run('in a request', () => undefined);
  used.enterWith('entered');
  expect(used.getStore()).toBe('entered');
  await env.teardown();
  expect(used.getStore()).toBeUndefined();
  // Disabled, not broken: the next run enables it again.
  expect(used.run('again', () => used.getStore())).toBe('again');
  expect(unused.getStore()).toBeUndefined();
});
