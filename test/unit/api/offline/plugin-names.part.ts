/**
 * Every plugin the app registers has a name Fastify can read off it (api/plugins/plugin-name.ts):
 * Fastify looks for an unnamed one among every loaded module, twice a registration, which made up a
 * third of building the app in a test file.
 */
import { named } from '../../../../api/plugins/plugin-name';
import { buildOfflineApp } from '../../../support/offline-app';

// Fastify's own helper, which names each plugin as it is registered; a plugin it finds a display
// name on costs it no search.
const pluginUtils = require('fastify/lib/plugin-utils.js') as {
  getPluginName(fn: (...args: never[]) => unknown): string | null;
  getDisplayName(fn: (...args: never[]) => unknown): string | undefined;
};

/** The one plugin of a library that registers a plugin of its own without a name. */
const UNNAMED_IN_LIBRARIES = ['fastifySwagger'];

it('registers no plugin of its own that Fastify has to search the loaded modules for', async () => {
  const spy = jest.spyOn(pluginUtils, 'getPluginName');
  try {
    const { app, close } = await buildOfflineApp();
    await app.ready();
    await close();
    const registered = spy.mock.calls.map(([fn]) => fn);
    expect(registered.length).toBeGreaterThanOrEqual(30);
    const unnamed = registered.filter((fn) => pluginUtils.getDisplayName(fn) === undefined).map((fn) => fn.name);
    expect([...new Set(unnamed)]).toEqual(UNNAMED_IN_LIBRARIES);
  } finally {
    spy.mockRestore();
  }
});

it('names a plugin after the const it is kept in, or as told, and refuses an anonymous one without a name', () => {
  const kept = named(async function keptPlugin() {});
  expect(pluginUtils.getDisplayName(kept)).toBe('keptPlugin');
  expect(pluginUtils.getDisplayName(named(async () => {}, 'given'))).toBe('given');
  // An arrow function passed inline has no name of its own: Fastify would have to search for it.
  expect(() => named((() => async () => {})())).toThrow('a plugin needs a name: pass one for an anonymous function');
});
