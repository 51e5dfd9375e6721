/** The embedded stack's data folder: private to whoever runs the arena, as it holds the encryption key, the database and logs. */
import fs from 'node:fs/promises';

export const PRIVATE_FOLDER_MODE = 0o700;

/** Creates the folder 0700, or makes an existing one 0700, saying so when others could read it. */
export async function prepareDataFolder(dir: string, log: (line: string) => void): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: PRIVATE_FOLDER_MODE });
  const mode = (await fs.stat(dir)).mode & 0o777;
  if (mode === PRIVATE_FOLDER_MODE) return;
  await fs.chmod(dir, PRIVATE_FOLDER_MODE);
  // Group search alone is what an embedded PostgreSQL run as root is given (it is given again on start).
  if ((mode & 0o067) !== 0) {
    log(
      `made ${dir} private to its owner (it was ${mode.toString(8)}, now 700): it holds the encryption key and the database`,
    );
  }
}
