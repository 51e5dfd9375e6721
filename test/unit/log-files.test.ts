import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openLogFile } from '../../infra/embedded/log-files';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-log-files-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const lines = (file: string) => fs.readFileSync(path.join(dir, file), 'utf8').split('\n').filter(Boolean);

it('rotates a log file at its size, keeps the newest old files only, and splits no line', async () => {
  const log = openLogFile(dir, 'postgres.log', { logFileBytes: 1_000, logFilesKept: 2 });
  const written = Array.from({ length: 200 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(30)}`);
  for (const line of written) log.write(line);
  await log.close();

  expect(fs.readdirSync(dir).sort()).toEqual(['postgres.log', 'postgres.log.1', 'postgres.log.2']);
  for (const file of ['postgres.log.1', 'postgres.log.2']) {
    // A rotated file stops at the first write that reached the size: under it plus one line.
    expect(fs.statSync(path.join(dir, file)).size).toBeLessThan(1_000 + 41);
  }
  // Oldest to newest, the kept files hold the last lines written, whole and in order.
  const kept = [...lines('postgres.log.2'), ...lines('postgres.log.1'), ...lines('postgres.log')];
  expect(kept).toEqual(written.slice(written.length - kept.length));
  expect(kept.length).toBeGreaterThan(40);
});

it('makes the folder and the file private to the arena', async () => {
  const logs = path.join(dir, 'logs');
  const log = openLogFile(logs, 'temporal.log', { logFileBytes: 1_000_000, logFilesKept: 3 });
  log.write('started');
  await log.close();
  expect(fs.statSync(logs).mode & 0o777).toBe(0o700);
  expect(fs.statSync(path.join(logs, 'temporal.log')).mode & 0o777).toBe(0o600);
  expect(lines(path.join('logs', 'temporal.log'))).toEqual(['started']);
});
