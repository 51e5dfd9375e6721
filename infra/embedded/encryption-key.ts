/** The embedded stack's encryption key: made once and kept in the data folder, so secrets survive restarts. */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PRIVATE_FOLDER_MODE } from './data-folder';

export async function readOrCreateEncryptionKey(dataDir: string): Promise<Buffer> {
  const file = path.join(dataDir, 'encryption.key');
  await fs.mkdir(dataDir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  try {
    await fs.writeFile(file, `${crypto.randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const hex = (await fs.readFile(file, 'utf8')).trim();
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new Error(
      `${file} should hold 64 hex characters (32 bytes); it does not, and replacing it would make what was encrypted with it unreadable: fix it or remove it`,
    );
  }
  return Buffer.from(hex, 'hex');
}
