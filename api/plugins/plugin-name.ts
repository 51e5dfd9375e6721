/**
 * A plugin's name for Fastify (its `pluginName`, as the Server reference documents it). A plugin
 * without one is looked for among every loaded module at each registration, and its name taken from
 * the file that exports it: about 7 ms a plugin where the modules are many, as in a test file, and a
 * third of building the app there. Naming it spares the search; its name is the const it is kept in.
 */
const DISPLAY_NAME = Symbol.for('fastify.display-name');

export function named<P extends (...args: never[]) => unknown>(plugin: P, name: string = plugin.name): P {
  if (!name) throw new Error('a plugin needs a name: pass one for an anonymous function');
  Object.defineProperty(plugin, DISPLAY_NAME, { value: name, configurable: true });
  return plugin;
}
