/** The MCP guide shows the example client whole, as the file the arena's tests run. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { GUIDES_DIR } from '../../../api/discovery/guides';

const ROOT = path.join(__dirname, '..', '..', '..');

it('the MCP guide holds the example client exactly as examples/mcp-client has it', () => {
  const guide = readFileSync(path.join(GUIDES_DIR, 'mcp-coding-session.md'), 'utf8');
  const example = readFileSync(path.join(ROOT, 'examples', 'mcp-client', 'solve-leap-year.mjs'), 'utf8');
  const blocks = [...guide.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  expect(blocks).toContain(example);
});
