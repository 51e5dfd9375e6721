/**
 * The arena's test reporter for a JavaScript task's hidden tests, and their guard. run.mjs imports it
 * before any hidden test (so before any code under test), and Node gives it the run's events as the
 * `--test-reporter`; it writes one JSON line, with the nonce read from stdin, to the report descriptor
 * once the run has ended. A run that ends before (a `process.exit` at import) has no report.
 *
 * The code under test runs in this process. Node's permission model (set by the worker) already keeps
 * it from the inspector, child processes, workers and files outside the scoring sandbox; here the
 * assertion and test modules are frozen, and what the run depends on is compared with what was loaded
 * at every test's start and end: a change marks the run `tampered`.
 */
import fs from 'node:fs';
import Module from 'node:module';
import assert from 'node:assert';
import strictAssert from 'node:assert/strict';
import test from 'node:test';

const REPORT_FD = Number(process.argv[3]);
const writeSync = fs.writeSync;
const stringify = JSON.stringify;
const nonce = fs.readFileSync(0, 'utf8').trim();

/** Frozen: an assignment fails (a TypeError in strict code, nothing in sloppy code). */
const frozen = [assert, strictAssert, assert.AssertionError, assert.AssertionError.prototype, test];
for (const value of frozen) Object.freeze(value);

/** Objects whose own properties the run depends on, by name, with those properties as loaded. */
const watched = [
  ['assert', assert],
  ['assert/strict', strictAssert],
  ['assert.AssertionError.prototype', assert.AssertionError.prototype],
  ['test', test],
  ['Module', Module],
  ['Module.prototype', Module.prototype],
  ['Module._extensions', Module._extensions],
  ['fs', fs],
  ['JSON', JSON],
  ['Object', Object],
  ['Function.prototype', Function.prototype],
  ['Promise', Promise],
  ['Promise.prototype', Promise.prototype],
].map(([name, object]) => [
  name,
  object,
  new Map(Reflect.ownKeys(object).map((key) => [key, descriptorOf(object, key)])),
]);

function descriptorOf(object, key) {
  const d = Object.getOwnPropertyDescriptor(object, key);
  return d && ('value' in d ? d.value : [d.get, d.set]);
}

function same(a, b) {
  return Array.isArray(a) && Array.isArray(b) ? a[0] === b[0] && a[1] === b[1] : a === b;
}

let tampered = null;

function check(when) {
  if (tampered !== null) return;
  for (const [name, object, saved] of watched) {
    const keys = Reflect.ownKeys(object);
    for (const key of keys) {
      if (!saved.has(key)) {
        tampered = `${name}.${String(key)} was added ${when}`;
        return;
      }
    }
    for (const [key, value] of saved) {
      if (!keys.includes(key)) tampered = `${name}.${String(key)} was removed ${when}`;
      else if (!same(descriptorOf(object, key), value)) tampered = `${name}.${String(key)} was replaced ${when}`;
      if (tampered !== null) return;
    }
  }
}

let reported = false;

/** The reporter: Node hands it the run's events and takes nothing back (the score goes to REPORT_FD). */
export default async function* arenaReporter(source) {
  // Node asks once; a second call is the code under test asking for a report of its own making.
  if (reported) tampered ??= 'the report was asked for twice';
  reported = true;
  const tests = [];
  const errors = [];
  /** The names of the suites and tests the current one sits in, by nesting level. */
  const within = [];
  for await (const event of source) {
    const data = event.data ?? {};
    if (event.type === 'test:start') {
      within.length = data.nesting;
      within.push(data.name);
      check(`before ${data.name}`);
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    check(`during ${data.name}`);
    // A describe() block is a suite, not a test; its tests come as events of their own.
    if (data.details?.type === 'suite') continue;
    const failure = data.details?.error;
    // A file that failed to load comes as a failing "test" named after the file: its tests never ran.
    if (failure?.failureType === 'testCodeFailure' && data.nesting === 0 && data.name === data.file) {
      errors.push(`${data.name}: ${failure.cause?.name ?? 'error'}`);
      continue;
    }
    const outcome =
      event.type === 'test:fail' ? 'failed' : data.skip !== undefined || data.todo !== undefined ? 'skipped' : 'passed';
    const id = [data.file ?? '', ...within.slice(0, data.nesting), data.name].join(' > ');
    tests.push({ id, outcome });
  }
  check('after the last test');
  const line = stringify({ nonce, harness: 'node-test', tests, errors, tampered }) + '\n';
  const bytes = Buffer.from(line, 'utf8');
  for (let written = 0; written < bytes.length;) written += writeSync(REPORT_FD, bytes, written);
}
