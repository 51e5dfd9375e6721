/** The bench's stack lifts every per-account and per-address rate limit, so only the service itself limits a figure. */
import fs from 'node:fs';
import path from 'node:path';
import { BENCH_SETTINGS } from '../../bench/stack/stack';

it('lifts every rate limit the configuration knows', () => {
  const source = fs.readFileSync(path.join(__dirname, '..', '..', 'infra', 'config.ts'), 'utf8');
  const limits = [...new Set(source.match(/ARENA_[A-Z_]+_RATE_LIMIT/g))];
  expect(limits.length).toBeGreaterThan(5);
  expect(limits.filter((name) => BENCH_SETTINGS[name] === undefined)).toEqual([]);
});
