/** How production starts the API: the arguments `npm run api` gives Node, read from package.json so the bench and tests run it the same way. */
import fs from 'node:fs';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');

/** Node's arguments in the `api` script (`node <flags> dist/api/server.js`), e.g. `['--max-semi-space-size=2', 'dist/api/server.js']`. */
export function apiNodeArgs(packageJson = path.join(REPO, 'package.json')): string[] {
  const { scripts } = JSON.parse(fs.readFileSync(packageJson, 'utf8')) as { scripts?: Record<string, string> };
  const words = (scripts?.api ?? '').trim().split(/\s+/);
  if (
    words[0] !== 'node' ||
    words.at(-1) !== 'dist/api/server.js' ||
    words.slice(1, -1).some((w) => !w.startsWith('-'))
  )
    throw new Error(`package.json's api script is not "node [flags] dist/api/server.js": ${scripts?.api}`);
  return words.slice(1);
}
