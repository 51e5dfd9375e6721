/** Who the embedded PostgreSQL runs as: PostgreSQL refuses root, so as root it runs as `postgres`. */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const OS_USER = 'postgres';

export interface PostgresIdentity {
  /** Unset when we are not root and PostgreSQL simply runs as us. */
  uid?: number;
  gid?: number;
}

export async function postgresIdentity(log: (line: string) => void): Promise<PostgresIdentity> {
  if (process.getuid?.() !== 0) return {};
  const existing = await lookupUser();
  if (existing) return existing;
  log(`creating the OS user '${OS_USER}' to run PostgreSQL (it refuses to run as root)`);
  const common = ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin'];
  // The second form is for a machine that already has a `postgres` group but no such user.
  for (const extra of [['--user-group'], ['--gid', OS_USER]]) {
    try {
      await run('useradd', [...common, ...extra, OS_USER]);
      break;
    } catch (err) {
      if (await lookupUser()) break; // another process created it first
      log(`useradd failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const created = await lookupUser();
  if (!created) throw new Error(`the OS user '${OS_USER}' still does not exist after creating it`);
  return created;
}

async function lookupUser(): Promise<Required<PostgresIdentity> | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', OS_USER]), run('id', ['-g', OS_USER])]);
    return { uid: Number.parseInt(uid.stdout, 10), gid: Number.parseInt(gid.stdout, 10) };
  } catch {
    return undefined;
  }
}

/**
 * The postgres user must be able to walk down to its data directory and its binaries; a
 * mkdtemp folder (0700) or a checkout under /root would stop it, so we add the search bit.
 */
export async function letPostgresReach(
  target: string,
  identity: PostgresIdentity,
  log: (line: string) => void,
): Promise<void> {
  if (identity.uid === undefined) return;
  const chain: string[] = [];
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    chain.push(dir);
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of chain.reverse()) {
    const stat = await fs.stat(dir);
    if ((stat.mode & 0o001) === 0) {
      log(`allowing other users to traverse ${dir} (chmod o+x) so that PostgreSQL can reach its files`);
      await fs.chmod(dir, (stat.mode & 0o7777) | 0o001);
    }
  }
}

/**
 * The data folder stays closed to other users: the postgres user gets in through the folder's
 * group (search only, 0710), not through the "others" bits that every account on the machine has.
 */
export async function letPostgresIn(dataDir: string, identity: PostgresIdentity): Promise<void> {
  if (identity.gid === undefined) return;
  // -1 keeps the owner.
  await fs.chown(dataDir, -1, identity.gid);
  await fs.chmod(dataDir, 0o710);
}
