/**
 * The embedded stack's data folder holds the encryption key, the database password, the database
 * and the logs: nobody but the person running the arena (and, when that is root, the PostgreSQL
 * user it starts the database as) may look inside.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readOrCreateEncryptionKey } from '../../infra/embedded/encryption-key';
import { prepareDataFolder } from '../../infra/embedded/data-folder';
import { startEmbeddedPostgres } from '../../infra/embedded/postgres';
import { freePort } from '../../infra/ports';

let parent: string;
const permissions = (dir: string) => fs.statSync(dir).mode & 0o777;

beforeEach(() => {
  parent = fs.mkdtempSync(path.join(os.tmpdir(), 'arena-data-folder-'));
  // A parent anyone may read, as a checkout usually is.
  fs.chmodSync(parent, 0o755);
});
afterEach(() => fs.rmSync(parent, { recursive: true, force: true }));

it('is created 0700, and an existing one open to others is tightened, saying so', async () => {
  const said: string[] = [];
  const fresh = path.join(parent, 'fresh', '.arena');
  await prepareDataFolder(fresh, (line) => said.push(line));
  expect(permissions(fresh)).toBe(0o700);
  expect(said).toEqual([]);

  const old = path.join(parent, 'old');
  fs.mkdirSync(old, { mode: 0o755 });
  fs.chmodSync(old, 0o755);
  await prepareDataFolder(old, (line) => said.push(line));
  expect(permissions(old)).toBe(0o700);
  expect(said).toEqual([
    `made ${old} private to its owner (it was 755, now 700): it holds the encryption key and the database`,
  ]);
});

it('is created 0700 by the encryption key when the key comes first', async () => {
  const dir = path.join(parent, 'key-first');
  await readOrCreateEncryptionKey(dir);
  expect(permissions(dir)).toBe(0o700);
});

it('lets only the PostgreSQL user in besides its owner, and nobody else, when the database is embedded', async () => {
  const dir = path.join(parent, '.arena');
  const pg = await startEmbeddedPostgres({ dataDir: dir, port: await freePort() });
  try {
    expect(permissions(dir) & 0o007).toBe(0);
    if (process.getuid?.() === 0) {
      // As root, PostgreSQL runs as its own user, which must walk into the folder (and no further).
      expect(permissions(dir)).toBe(0o710);
      expect(fs.statSync(dir).gid).toBe(fs.statSync(path.join(dir, 'postgres')).gid);
    } else {
      expect(permissions(dir)).toBe(0o700);
    }
  } finally {
    await pg.stop();
  }
}, 120_000);
