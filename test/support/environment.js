/**
 * Jest's Node environment, less one cost that grew with every file a worker ran. Node's
 * AsyncLocalStorage instances live in one list per process once used, until `disable()`, and Node
 * walks that list whenever an async resource or a promise is made. Jest loads the code again for
 * each test file, so each file's Temporal connections, activity context and request context added
 * storages of their own (23 in the arena's judging file alone) that nothing ever disabled: a
 * worker's late files paid for the storages of all the files before them. A storage a test file
 * enabled is disabled when its file ends, as if the file had run in a process of its own.
 */
const { AsyncLocalStorage } = require('node:async_hooks');
const { TestEnvironment } = require('jest-environment-node');

const ENABLED_BY_FILE = Symbol.for('agent-arena.test.asyncStoragesOfThisFile');

// Node core modules are shared by every file a worker runs, so the wrapper is installed once.
if (!AsyncLocalStorage.prototype[ENABLED_BY_FILE]) {
  const enable = AsyncLocalStorage.prototype._enable;
  if (typeof enable !== 'function') throw new Error('AsyncLocalStorage has no _enable to track here');
  const enabled = new Set();
  AsyncLocalStorage.prototype[ENABLED_BY_FILE] = enabled;
  AsyncLocalStorage.prototype._enable = function trackedEnable() {
    if (!this.enabled) enabled.add(this);
    return enable.call(this);
  };
}

class ArenaTestEnvironment extends TestEnvironment {
  async teardown() {
    await super.teardown();
    const enabled = AsyncLocalStorage.prototype[ENABLED_BY_FILE];
    for (const storage of enabled) storage.disable();
    enabled.clear();
  }
}

module.exports = ArenaTestEnvironment;
