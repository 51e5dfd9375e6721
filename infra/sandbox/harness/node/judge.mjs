/**
 * The judge: runs a JavaScript task's hidden tests with node:test, on code it reaches only over the wire.
 *
 * Run by the worker in a sandbox of its own, as a user that is not the session's, with the hidden
 * tests and the harness and nothing of the workspace:
 *
 *   node --permission flags --test-reporter=<judge-report.mjs> --test-reporter-destination=stdout \
 *     judge.mjs <hidden tests folder> <report fd> <wire in fd> <wire out fd> <scratch folder>
 *
 * (the nonce on stdin). The scratch folder is where the tests' temporary files go (os.tmpdir()): the
 * candidate can read it, so a test can hand the code under test a file it wrote.
 *
 * A hidden test's `require('../lib/cache.js')` or `import { total } from '../cart.mjs'` (a relative
 * path out of the tests' folder) is answered by the candidate process (candidate.mjs), which loads
 * the code under test as the session's user: the test gets the module's exports as the candidate sent
 * them. Plain values come as data this process decodes into objects of its own; anything else is a
 * handle, a Proxy whose every call, construction and property read is a message, never equal to a
 * value and with no primitive value (so `==` cannot be talked into true), and a promise of the
 * candidate's is a promise of the judge's, settled when the candidate's settles. So the tests, every
 * assertion and the count of passes are this process's own: the code under test cannot patch them,
 * read them, or write the report. A candidate that breaks the protocol is marked tampered with; one
 * that dies or hangs fails the test that waited on it, and every test after it.
 */
import fs from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { types } from 'node:util';
import vm from 'node:vm';
import { state, writeReport } from './judge-report.mjs';
import { candidatePath } from './judge-paths.mjs';
import { Codec, Connection, PeerGone, PeerTimeout, WireError, callFields, invoke, settle } from './wire.mjs';

/** The longest one call to the candidate may take before the test that made it fails. */
const CALL_SECONDS = 30;

/** The arena's own sentence for a run found tampered with: never words the code under test chose. */
const BROKE_PROTOCOL = 'the code under test sent the judge a message the protocol does not allow';

/** How many values the judge could not compare it names, for the owner alone. */
const MAX_UNCOMPARED = 5;

/** How the owner's note names a class of the code's: its name when it reads as one, in backticks. */
function classNamed(name) {
  return typeof name === 'string' && /^[A-Za-z_$][A-Za-z0-9_$]{0,39}$/.test(name)
    ? `a \`${name}\``
    : 'an object of its own class';
}

/** Notes, for the owner, a value of the code's the judge could not use as the test's plain value. */
function uncompared(className, what) {
  const note = `returned ${classNamed(className)}, which the judge cannot ${what}`;
  if (!state.uncompared.includes(note) && state.uncompared.length < MAX_UNCOMPARED) state.uncompared.push(note);
}

const testsRoot = fs.realpathSync(path.resolve(process.argv[2]));
state.reportFd = Number(process.argv[3]);
const readFd = Number(process.argv[4]);
const writeFd = Number(process.argv[5]);
const scratch = process.argv[6];
// A shorter limit for the harness's own tests; scoring gives none.
const callSeconds = process.argv[7] ? Number(process.argv[7]) : CALL_SECONDS;
state.nonce = fs.readFileSync(0, 'utf8').trim();

shareTemporaryFiles(scratch);

/** The candidate cannot answer any more: it broke the protocol, died or hung. */
function candidateBroke(error) {
  if (error instanceof WireError) {
    connection.fail(error);
    return new Error("the code under test broke the judge's protocol");
  }
  if (error instanceof PeerGone) return new Error("the code under test's process ended");
  if (error instanceof PeerTimeout) return new Error(`the code under test did not answer within ${callSeconds} s`);
  return error;
}

/** One request to the candidate, its reply read: a value, or the candidate's error thrown as the judge's own. */
function ask(op, fields, args = []) {
  let reply;
  try {
    reply = connection.request(op, fields);
    return settle(codec, reply, args);
  } catch (error) {
    throw candidateBroke(error);
  }
}

const WIRED_SYMBOLS = new Map([
  [Symbol.iterator, 'iterator'],
  [Symbol.asyncIterator, 'asyncIterator'],
]);

/** The prototype every handle claims: no value's, so a handle is never deep-equal to a value. */
const HANDLE_PROTOTYPE = Object.freeze(Object.create(null));

function noPrimitive(id, className) {
  return function toPrimitive(hint) {
    // A string for messages (`${value}`); never a number or a default, so `==` and `<` cannot be won.
    if (hint === 'string') {
      const text = ask('str', { t: id });
      if (typeof text === 'string') return text;
    }
    uncompared(className, hint === 'number' ? 'read as a number' : 'compare as a plain value');
    throw new TypeError('a value of the code under test that is not plain data has no primitive value here');
  };
}

/** A value of the candidate's that is not plain data: reached only by messages. */
function proxyOf(id, kind, data) {
  const target = kind === 'object' ? {} : function candidateFunction() {};
  return new Proxy(target, {
    get(_target, key) {
      if (typeof key === 'symbol') {
        if (key === Symbol.toPrimitive) return noPrimitive(id, data?.n);
        if (WIRED_SYMBOLS.has(key)) return ask('get', { t: id, s: WIRED_SYMBOLS.get(key) });
        return undefined;
      }
      // Only the candidate's own promises are awaited (as promises of the judge's); a handle is no thenable.
      if (key === 'then') return undefined;
      // An error class of the candidate's: its instances are the judge's errors of the class made for it.
      if (kind === 'error-class' && key === 'prototype') return codec.peerClass(id, data.n, data.b).prototype;
      return ask('get', { t: id, n: key });
    },
    set(_target, key, value) {
      if (typeof key === 'symbol') return false;
      ask('set', { t: id, n: key, v: codec.encode(value) });
      return true;
    },
    has(_target, key) {
      return typeof key === 'string' && ask('has', { t: id, n: key }) === true;
    },
    deleteProperty(_target, key) {
      return typeof key === 'string' && ask('delete', { t: id, n: key }) === true;
    },
    apply(_target, self, args) {
      return ask('call', callFields(codec, id, self, args), args);
    },
    construct(_target, args) {
      const made = ask('new', callFields(codec, id, undefined, args), args);
      if (made === null || (typeof made !== 'object' && typeof made !== 'function')) {
        throw new TypeError('the code under test constructed no object');
      }
      return made;
    },
    getPrototypeOf() {
      return HANDLE_PROTOTYPE;
    },
    setPrototypeOf() {
      return false;
    },
    defineProperty() {
      return false;
    },
  });
}

/** A promise of the candidate's: one of the judge's, settled when the candidate says it has. */
function promiseOf(id) {
  const promise = connection.requestAsync('settle', { t: id }, callSeconds * 1000).then(
    (reply) => {
      try {
        return settle(codec, reply);
      } catch (error) {
        throw candidateBroke(error);
      }
    },
    (error) => {
      throw candidateBroke(error);
    },
  );
  promise.catch(() => undefined);
  return promise;
}

const codec = new Codec({ proxyOf, promiseOf });

/** The candidate may call the functions the judge gave it and await its promises: nothing else. */
function handleRequest(message) {
  const target = codec.exported.get(message.t);
  if (message.op === 'call' && typeof target === 'function') return invoke(codec, target, message);
  if (message.op === 'settle' && types.isPromise(target)) {
    return target.then(
      (value) => ({ v: codec.encode(value) }),
      (error) => ({ x: codec.encodeError(error) }),
    );
  }
  throw new WireError('a request the judge does not take');
}

const connection = new Connection({
  readFd,
  writeFd,
  codec,
  handleRequest,
  callMs: callSeconds * 1000,
  onBroken(error) {
    if (error instanceof WireError && state.tampered === null) {
      state.tampered = BROKE_PROTOCOL;
      state.detail = error.message;
    }
  },
});

/** Once reported: the candidate is told, and the judge exits once its wire has closed (at most 2 s on). */
state.finish = () => {
  if (connection.gone) return;
  try {
    connection.send({ op: 'bye', i: 0 });
  } catch {
    // A candidate already gone.
  }
  connection.whenGone(2000).then((closed) => {
    // A reader blocked on a wire the candidate holds open would keep the process from exiting.
    if (!closed) process.kill(process.pid, 'SIGKILL');
  });
};

/** The code under test's modules, by path in the code's folder, as the candidate sent them. */
const modules = new Map();
globalThis[Symbol.for('arena.judge.modules')] = modules;

function candidateModule(op, relative) {
  const key = `${op}:${relative}`;
  if (!modules.has(key)) modules.set(key, ask(op, { n: relative }));
  return modules.get(key);
}

// require() from a test file (CommonJS).
const load = Module._load;
Module._load = function judgeLoad(request, parent, isMain) {
  const relative = candidatePath(request, parent?.filename, testsRoot);
  if (relative !== null) return candidateModule('require', relative);
  return load.call(this, request, parent, isMain);
};

/**
 * An ES module test file, linked by the judge (vm.SourceTextModule, in this context): an import of the
 * code under test is a module of the judge's holding what the candidate sent for it; the tests' own
 * modules are linked the same way; anything else (node:test, node:assert, a CommonJS helper) is
 * imported as usual. No loader hooks: their thread would reserve address space the sandbox does not have.
 */
const linked = new Map();

function sourceModule(file) {
  const url = pathToFileURL(file).href;
  if (!linked.has(url)) {
    linked.set(
      url,
      new vm.SourceTextModule(fs.readFileSync(file, 'utf8'), {
        identifier: url,
        initializeImportMeta(meta) {
          meta.url = url;
          meta.filename = file;
          meta.dirname = path.dirname(file);
        },
        importModuleDynamically: (specifier, referrer) => importedModule(specifier, referrer),
      }),
    );
  }
  return linked.get(url);
}

function syntheticModule(key, exports) {
  if (!linked.has(key)) {
    const names = Object.keys(exports).filter((name) => name.isWellFormed());
    linked.set(
      key,
      new vm.SyntheticModule(
        names,
        function setExports() {
          for (const name of names) this.setExport(name, exports[name]);
        },
        { identifier: key },
      ),
    );
  }
  return linked.get(key);
}

async function linkedModule(specifier, referrer) {
  const parent = referrer?.identifier?.startsWith('file:') ? fileURLToPath(referrer.identifier) : undefined;
  const relative = candidatePath(specifier, parent, testsRoot);
  let module;
  if (relative !== null) {
    module = syntheticModule(`arena-candidate:${relative}`, candidateModule('import', relative));
  } else if ((specifier.startsWith('./') || specifier.startsWith('../')) && /\.mjs$/.test(specifier) && parent) {
    module = sourceModule(path.resolve(path.dirname(parent), specifier));
  } else {
    const target =
      (specifier.startsWith('./') || specifier.startsWith('../')) && parent
        ? pathToFileURL(path.resolve(path.dirname(parent), specifier)).href
        : specifier;
    module = syntheticModule(target, await import(target));
  }
  return module;
}

/** A test's import(): the module linked and evaluated before it is handed over. */
async function importedModule(specifier, referrer) {
  const module = await linkedModule(specifier, referrer);
  if (module.status === 'unlinked') await module.link(linkedModule);
  if (module.status === 'linked') await module.evaluate();
  return module;
}

async function importTestFile(file) {
  if (!file.endsWith('.mjs')) return import(pathToFileURL(file).href);
  const module = sourceModule(file);
  await module.link(linkedModule);
  await module.evaluate();
}

function testFiles(dir) {
  const files = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...testFiles(file));
    else if (entry.isFile() && /\.(c|m)?js$/.test(entry.name)) files.push(file);
  }
  return files;
}

for (const file of testFiles(testsRoot)) {
  try {
    await importTestFile(file);
  } catch (error) {
    // The file's tests never ran (the code under test did not load, say); the others still run.
    state.errors.push(`${path.relative(testsRoot, file)}: ${error?.name ?? 'error'}`);
  }
}

// No test declared (no file loaded): node:test never starts the reporter, so the judge reports.
process.once('beforeExit', () => {
  if (!state.reporting) writeReport([]);
});

/**
 * The tests' temporary files go to the scratch folder, readable by the candidate's user: os.tmpdir()
 * names it, files are made 644 and folders from mkdtemp 755.
 */
function shareTemporaryFiles(folder) {
  process.env.TMPDIR = folder;
  process.umask(0o022);
  const open = (made) => {
    try {
      fs.chmodSync(made, 0o755);
    } catch {
      // Left as made.
    }
    return made;
  };
  const mkdtempSync = fs.mkdtempSync;
  fs.mkdtempSync = (...args) => open(mkdtempSync(...args));
  const mkdtemp = fs.promises.mkdtemp;
  fs.promises.mkdtemp = async (...args) => open(await mkdtemp(...args));
}
