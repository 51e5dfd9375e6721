/**
 * Schemathesis (from PyPI), which fuzzes the API from its OpenAPI document: found in the tool
 * folder, or installed there with pip by the fuzz test that needs it.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { runCommand } from '../../infra/embedded/processes';

const run = promisify(execFile);
export const SCHEMATHESIS_PACKAGE = 'schemathesis==4.32.5';
const TOOL_DIR = path.resolve(__dirname, '..', '..', '.arena', 'tools');
const ENTRY =
  "import sys; sys.argv[0] = 'schemathesis'; from schemathesis.cli import schemathesis; sys.exit(schemathesis())";

export interface Schemathesis {
  /** The command and its leading arguments: `[...command, 'run', ...]`. */
  command: string[];
  env: NodeJS.ProcessEnv;
}

function inFolder(folder: string): Schemathesis {
  return {
    command: ['python3', '-c', ENTRY],
    env: { ...process.env, PYTHONPATH: folder, PYTHONDONTWRITEBYTECODE: '1' },
  };
}

async function works(tool: Schemathesis): Promise<boolean> {
  try {
    const { stdout } = await run(tool.command[0]!, [...tool.command.slice(1), '--version'], {
      env: tool.env,
      timeout: 60_000,
    });
    return /^schemathesis, version \d/m.test(stdout);
  } catch {
    return false;
  }
}

export async function findOrInstallSchemathesis(log: (line: string) => void = () => undefined): Promise<Schemathesis> {
  const folder = path.join(TOOL_DIR, 'schemathesis');
  const tool = inFolder(folder);
  if (await works(tool)) return tool;
  await fs.rm(folder, { recursive: true, force: true });
  await fs.mkdir(TOOL_DIR, { recursive: true });
  const staging = `${folder}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  log(`installing ${SCHEMATHESIS_PACKAGE} into ${folder}`);
  try {
    await runCommand('python3', [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--no-input',
      '--quiet',
      '--target',
      staging,
      SCHEMATHESIS_PACKAGE,
    ]);
    await fs.rename(staging, folder).catch((err: NodeJS.ErrnoException) => {
      // Someone else finished first; theirs is as good as ours.
      if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    });
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
  if (!(await works(tool))) throw new Error(`${SCHEMATHESIS_PACKAGE} was installed into ${folder} but does not run`);
  return tool;
}

if (require.main === module) {
  findOrInstallSchemathesis(console.log).then(
    () => console.log('schemathesis ready'),
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exit(1);
    },
  );
}
