/**
 * The candidate: the code under test, loaded here and reached by the judge only over the wire.
 *
 * Run by the worker as the session's own user, in the session's sandbox on the clean room, never
 * beside the hidden tests, under Node's permission model (it reads its code, the harness and the
 * judge's scratch folder, writes only /tmp, and starts no child processes):
 *
 *   node --permission flags candidate.mjs <code folder> <wire in fd> <wire out fd>
 *
 * It loads the modules the judge asks for (a hidden test's `require('../lib/cache.js')` or
 * `import ... from '../cart.mjs'`), calls, constructs and reads what the judge asks it to, awaits the
 * promises the judge awaits, and sends back values: plain ones as data, anything else as a handle.
 * Whatever the code under test does here, it does in this process: it cannot reach the judge's
 * memory, files or descriptors, and nothing it prints, writes or exits with is read as a result.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Codec, Connection, callFields, invoke, settle } from './wire.mjs';

const codeDir = path.resolve(process.argv[2]);
const readFd = Number(process.argv[3]);
const writeFd = Number(process.argv[4]);
process.chdir(codeDir);
const requireCode = createRequire(path.join(codeDir, 'index.js'));

// What the code under test leaves unhandled is its own affair: the candidate goes on answering.
process.on('uncaughtException', () => undefined);
process.on('unhandledRejection', () => undefined);
// An exit (the code's process.exit among them) closes the wire at once, and ends the process without
// waiting for the wire's reader, blocked on a read the judge may never answer.
process.on('exit', () => {
  try {
    fs.closeSync(writeFd);
  } catch {
    // Already closed.
  }
  process.kill(process.pid, 'SIGKILL');
});

const codec = new Codec({
  namesClasses: true,
  /** A function of the judge's (a test's listener, fake clock or operation): calling it is a request. */
  proxyOf(id, kind) {
    if (kind === 'object') return new Proxy({}, {});
    return new Proxy(function judgeFunction() {}, {
      apply(_target, self, args) {
        return settle(codec, connection.request('call', callFields(codec, id, self, args)), args);
      },
      construct() {
        throw new TypeError("a function of the judge's cannot be constructed here");
      },
    });
  },
  /** A promise of the judge's: one of this process's, settled when the judge's settles. */
  promiseOf(id) {
    const promise = connection.requestAsync('settle', { t: id }).then((reply) => settle(codec, reply));
    promise.catch(() => undefined);
    return promise;
  },
});

/** A path the judge names, relative to the code's folder, never outside it. */
function codePath(relative) {
  const file = path.resolve(codeDir, String(relative));
  if (file !== codeDir && !file.startsWith(codeDir + path.sep)) throw new Error('a module outside the code under test');
  return file;
}

const SYMBOLS = { iterator: Symbol.iterator, asyncIterator: Symbol.asyncIterator };

function keyOf(message) {
  if ('s' in message) {
    if (!Object.hasOwn(SYMBOLS, message.s)) throw new TypeError('a symbol the wire does not carry');
    return SYMBOLS[message.s];
  }
  return String(message.n);
}

function handle(message) {
  const op = message.op;
  if (op === 'bye') {
    // The judge has reported: an empty frame tells its reader the wire is closed, and both ends go.
    fs.writeSync(writeFd, Buffer.alloc(4));
    fs.closeSync(writeFd);
    return undefined;
  }
  if (op === 'require') {
    const exported = requireCode(codePath(message.n));
    // A module's exports stay the code's own: read through its handle, as the code changes them.
    const live = exported !== null && typeof exported === 'object';
    return { v: live ? codec.handleOf(exported) : codec.encode(exported) };
  }
  if (op === 'import') {
    return import(pathToFileURL(codePath(message.n)).href).then((namespace) => {
      const exports = Object.create(null);
      for (const name of Object.keys(namespace)) exports[name] = namespace[name];
      return { v: codec.encode(exports) };
    });
  }
  if (!codec.exported.has(message.t)) throw new ReferenceError('no such handle');
  const target = codec.exported.get(message.t);
  switch (op) {
    case 'get':
      return { v: codec.encode(Reflect.get(Object(target), keyOf(message))) };
    case 'set':
      return { v: Reflect.set(Object(target), keyOf(message), codec.decode(message.v)) };
    case 'has':
      return { v: keyOf(message) in Object(target) };
    case 'delete':
      return { v: Reflect.deleteProperty(Object(target), keyOf(message)) };
    case 'call':
    case 'new':
      return invoke(codec, target, message);
    case 'str':
      return { v: String(target) };
    case 'settle':
      return Promise.resolve(target).then(
        (value) => ({ v: codec.encode(value) }),
        (error) => ({ x: codec.encodeError(error) }),
      );
    default:
      throw new TypeError('an operation the candidate does not take');
  }
}

const connection = new Connection({ readFd, writeFd, codec, handleRequest: handle, keepAlive: true });
connection.goneListeners.push(() => process.exit(0));
