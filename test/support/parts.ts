/**
 * Several test files of one area run as one: Jest gives every test file a module registry of its
 * own, and loading the app's modules into one costs about 1.6 CPU-seconds, more than many of these
 * files spend on their tests. A part (`<name>.part.ts`) is a whole test file, with its own set-up
 * and teardown; here it becomes a `describe` of its name, in the registry of the file that lists it.
 * `npx jest <that file> -t '^<name> '` runs one part.
 */
import path from 'node:path';

export function runParts(dir: string, names: readonly string[]): void {
  for (const name of names) {
    describe(name, () => {
      // The part's hooks and tests are declared while this describe is collected, so they belong to it.
      require(path.join(dir, `${name}.part`));
    });
  }
}
