/**
 * The embedded servers' log files in the data folder (`<data>/logs/<name>`): rotated once a file
 * reaches its size, like logrotate (`postgres.log.1` the newest old one), keeping a few old files,
 * so weeks of running take a bounded amount of disk.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createStream } from 'rotating-file-stream';
import type { RetentionLimits } from '../config-types';
import { PRIVATE_FOLDER_MODE } from './data-folder';

export interface LogFile {
  /** Appends one line; lines are never split across two files. */
  write(line: string): void;
  /** Writes out what is buffered and closes the file. */
  close(): Promise<void>;
}

export function openLogFile(
  dir: string,
  name: string,
  limits: Pick<RetentionLimits, 'logFileBytes' | 'logFilesKept'>,
): LogFile {
  fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const stream = createStream(name, {
    path: dir,
    size: `${limits.logFileBytes}B`,
    rotate: limits.logFilesKept,
    mode: 0o600,
  });
  let failed = false;
  // A log file that cannot be written must not take the server down with it; it says so once.
  stream.on('error', (err) => {
    if (!failed) console.error(`[arena] writing ${path.join(dir, name)} failed: ${err.message}`);
    failed = true;
  });
  return {
    write: (line) => {
      if (!failed) stream.write(`${line}\n`);
    },
    close: () => new Promise((resolve) => (failed ? resolve() : stream.end(resolve))),
  };
}
