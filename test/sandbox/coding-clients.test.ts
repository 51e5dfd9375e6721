/**
 * A coding session as its clients see it: the MCP endpoint, real MCP clients on it, and the known
 * ways of faking a score. Each part is a test file of its own, run in this file's module registry
 * (test/support/parts.ts).
 */
import { runParts } from '../support/parts';

runParts(__dirname, ['coding-mcp', 'coding-mcp-clients', 'reward-hacks']);
