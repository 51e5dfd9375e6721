/**
 * `npm run build`'s compile step: the server's TypeScript to CommonJS in dist/, file by file, with
 * SWC, the compiler the tests run the same sources through (jest.config.js). It does not type-check:
 * `npm run typecheck` does, over the server, the runner and the tests. A folder's layout is kept
 * (api/server.ts -> dist/api/server.js), with a source map beside each file.
 */
const fs = require('node:fs');
const path = require('node:path');
const { transformFileSync } = require('@swc/core');

const REPO = path.resolve(__dirname, '..');
const OUT = path.join(REPO, 'dist');
/** The server's folders; the runner is a package of its own, built by its workspace. */
const FOLDERS = ['api', 'services', 'domain', 'infra', 'cli', 'worker', 'workflows', 'activities'];

const isSource = (name) => name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts');

let count = 0;
for (const folder of FOLDERS) {
  for (const relative of fs.readdirSync(path.join(REPO, folder), { recursive: true })) {
    if (!isSource(relative)) continue;
    const source = path.join(REPO, folder, relative);
    const target = path.join(OUT, folder, relative.replace(/\.ts$/, '.js'));
    const { code, map } = transformFileSync(source, {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'commonjs' },
      sourceMaps: true,
      outputPath: target,
      swcrc: false,
      configFile: false,
    });
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, `${code}\n//# sourceMappingURL=${path.basename(target)}.map\n`);
    fs.writeFileSync(`${target}.map`, map);
    count++;
  }
}
console.log(`compiled ${count} files into dist/`);
