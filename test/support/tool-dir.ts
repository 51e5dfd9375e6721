/**
 * Where the tests keep the tools they fetch (the Temporal CLI, the time-skipping test server, the
 * Python packages): one folder per user, shared by every clone of the project, as browser test
 * tools keep their browsers. `ARENA_TEST_TOOL_DIR` if set, else `$XDG_CACHE_HOME/agent-arena/tools`,
 * else `~/.cache/agent-arena/tools`. A tool's folder names its version, so clones at different
 * commits never take each other's.
 */
import os from 'node:os';
import path from 'node:path';

export function testToolDir(): string {
  if (process.env.ARENA_TEST_TOOL_DIR) return path.resolve(process.env.ARENA_TEST_TOOL_DIR);
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'agent-arena', 'tools');
}
