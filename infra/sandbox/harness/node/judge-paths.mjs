/**
 * Which of a hidden test's imports are the code under test's: a relative path that leads out of the
 * tests' folder, into the code's (the tests sit in `<code>/.hidden-tests/` as the task is written).
 */
import path from 'node:path';

/** The module's path relative to the code's folder, or null when the import is the tests' own. */
export function candidatePath(specifier, parentFile, testsRoot) {
  if (typeof specifier !== 'string' || typeof parentFile !== 'string') return null;
  if (!specifier.startsWith('./') && !specifier.startsWith('../') && specifier !== '.' && specifier !== '..')
    return null;
  if (parentFile !== testsRoot && !parentFile.startsWith(testsRoot + path.sep)) return null;
  const file = path.resolve(path.dirname(parentFile), specifier.replace(/[?#].*$/s, ''));
  if (file === testsRoot || file.startsWith(testsRoot + path.sep)) return null;
  const relative = path.relative(path.dirname(testsRoot), file);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) {
    throw new Error(`${specifier} leads outside the code under test`);
  }
  return relative;
}
