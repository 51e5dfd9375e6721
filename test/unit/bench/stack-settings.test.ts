/** The bench's stack lifts every per-account and per-address rate limit, so only the service itself limits a figure, and runs the API as production does. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { apiNodeArgs } from '../../../bench/stack/api-command';
import { BENCH_SETTINGS } from '../../../bench/stack/stack';

it('lifts every rate limit the configuration knows', () => {
  const source = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'infra', 'config.ts'), 'utf8');
  const limits = [...new Set(source.match(/ARENA_[A-Z_]+_RATE_LIMIT/g))];
  expect(limits.length).toBeGreaterThan(5);
  expect(limits.filter((name) => BENCH_SETTINGS[name] === undefined)).toEqual([]);
});

it("runs the API with the arguments of package.json's api script, and refuses a script of another shape", () => {
  expect(apiNodeArgs()).toEqual(['--max-semi-space-size=2', '--heap-growing-percent=50', 'dist/api/server.js']);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'api-script-'));
  try {
    const file = path.join(dir, 'package.json');
    fs.writeFileSync(file, JSON.stringify({ scripts: { api: 'node --import tsx api/server.ts' } }));
    expect(() => apiNodeArgs(file)).toThrow(/not "node \[flags\] dist\/api\/server.js"/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
