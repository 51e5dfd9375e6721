/** Paths an agent names inside its session's workspace: which are allowed, and their one spelling. */
import { ArenaError } from '../errors';

export const MAX_WORKSPACE_PATH_CHARS = 1024;
/** What Linux file systems allow for one name. */
const MAX_NAME_BYTES = 255;
const utf8 = new TextEncoder();

/**
 * The workspace-relative path `relative` with empty and `.` segments dropped (`.` for the root), or an
 * `invalid` ArenaError whose sentence says what is wrong. Symbolic links are the file access's concern:
 * a path that passes here may still lead out through one.
 */
export function workspacePath(relative: string): string {
  const refuse = (detail: string) => new ArenaError('invalid', detail);
  if (relative.includes('\0')) throw refuse('path must not contain a NUL character');
  if (/[\x01-\x1f\x7f]/.test(relative)) throw refuse('path must not contain control characters');
  if (relative.startsWith('/')) throw refuse('path must be relative to the workspace root');
  if (relative.length > MAX_WORKSPACE_PATH_CHARS)
    throw refuse(`path must be at most ${MAX_WORKSPACE_PATH_CHARS} characters`);
  const names = relative.split('/').filter((name) => name !== '' && name !== '.');
  if (names.includes('..')) throw refuse('path must not contain a ".." segment');
  if (names.some((name) => utf8.encode(name).length > MAX_NAME_BYTES))
    throw refuse(`each name in the path must be at most ${MAX_NAME_BYTES} bytes`);
  return names.length === 0 ? '.' : names.join('/');
}
