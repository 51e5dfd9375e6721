/**
 * The wire between the judge and the candidate of a JavaScript task: frames, the value codec and calls
 * across processes, both ways.
 *
 * Frames are a 4-byte big-endian length, then that many bytes of UTF-8 JSON, at most 16 MiB; an empty
 * frame is the sender's last (the judge's reader cannot wait for a close its peer's shell holds open). A worker
 * thread reads them (wire-reader.mjs); the main thread takes them either blocked (a call waits for its
 * reply with Atomics.wait, answering the peer's own calls meanwhile) or from its event loop (while a
 * promise of the peer's is awaited, the peer may call back at any time).
 *
 * A value crosses as data when it is plain: undefined, null, booleans, numbers (NaN, the infinities
 * and -0 too), BigInts, strings (lone surrogates too), and arrays, plain objects, Maps, Sets and Dates
 * of plain values, decoded on the other side into objects of its own making. A boxed primitive, and
 * an instance of a subclass of Array, Map, Set, Date, Number, String or Boolean, crosses as the plain
 * value it holds, read with the built-in type's own methods: what the subclass overrides (valueOf,
 * toString, its iterator, entries) is not the value, and decides nothing. Anything else (a
 * function, a class's instance, a Proxy, a promise) crosses as a handle: the other side gets a proxy of
 * its own. A promise's handle becomes a promise of the receiver's, settled when the peer's settles
 * (a request the peer answers once it has). Exceptions cross as the receiver's built-in error types
 * (a class of the thrower's own as a class of that name under its nearest built-in base), with their
 * message and own plain properties; one that comes back where it came from is the original again.
 * Arrays, plain objects, Maps and Sets passed to a call are sent back with its result, in one frame,
 * and refilled in place, so the caller sees what the call did to them.
 */
import fs from 'node:fs';
import { types } from 'node:util';
import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';

export const MAX_FRAME = 16 * 1024 * 1024;
export const MAX_DEPTH = 200;
export const MAX_MESSAGE_CHARS = 2000;
const MAX_ARRAY = 10_000_000;

/** The peer broke the protocol: a malformed or oversized frame, a reply to nothing, a request not taken. */
export class WireError extends Error {}
/** The peer's end of the wire closed: it exited, or was killed. */
export class PeerGone extends Error {}
/** The peer did not answer in time. */
export class PeerTimeout extends Error {}

/** The built-in error types, as this process loaded them (before any code under test ran). */
export const BUILTIN_ERRORS = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
  AggregateError,
};
const BUILTIN_PROTOTYPES = new Map(Object.entries(BUILTIN_ERRORS).map(([name, cls]) => [cls.prototype, name]));
const { getPrototypeOf, keys, defineProperty, create } = Object;
const { isArray } = Array;
const ObjectProto = Object.prototype;
const PromiseProto = Promise.prototype;
const promiseThen = Promise.prototype.then;
const dateTime = Date.prototype.getTime;
const mapEntries = Map.prototype.entries;
const setValues = Set.prototype.values;
const numberValue = Number.prototype.valueOf;
const stringValue = String.prototype.valueOf;
const booleanValue = Boolean.prototype.valueOf;
const bigintValue = BigInt.prototype.valueOf;
const symbolValue = Symbol.prototype.valueOf;
const stringify = JSON.stringify;
const parse = JSON.parse;

/** The nearest built-in error type of `value`'s prototype chain, or undefined when it is not an error. */
function builtinBase(value) {
  let proto = value;
  for (let depth = 0; depth < 100; depth++) {
    proto = getPrototypeOf(proto);
    if (proto === null) return undefined;
    const name = BUILTIN_PROTOTYPES.get(proto);
    if (name !== undefined) return name;
  }
  return undefined;
}

function errorClassBase(fn) {
  try {
    const proto = fn.prototype;
    if (proto === null || (typeof proto !== 'object' && typeof proto !== 'function')) return undefined;
    return BUILTIN_PROTOTYPES.get(proto) ?? builtinBase(proto);
  } catch {
    return undefined;
  }
}

/**
 * A plain value's tag: A(rray), O(bject), M(ap), S(et), D(ate), B(oxed primitive); undefined for
 * anything else. Known by the engine's own marks (an array, a Map's internal slots), not by the
 * prototype: a subclass's instance holds the same plain value.
 */
function plainKind(value) {
  if (types.isProxy(value)) return undefined;
  const proto = getPrototypeOf(value);
  if (proto === ObjectProto || proto === null) return 'O';
  if (isArray(value)) return 'A';
  if (types.isMap(value)) return 'M';
  if (types.isSet(value)) return 'S';
  if (types.isDate(value)) return 'D';
  if (types.isBoxedPrimitive(value)) return 'B';
  return undefined;
}

/** The primitive a boxed one holds, read with its built-in type's own valueOf. */
function unboxed(value) {
  if (types.isNumberObject(value)) return numberValue.call(value);
  if (types.isStringObject(value)) return stringValue.call(value);
  if (types.isBooleanObject(value)) return booleanValue.call(value);
  if (types.isBigIntObject(value)) return bigintValue.call(value);
  return symbolValue.call(value);
}

function encodeNumber(n) {
  if (Number.isFinite(n) && !Object.is(n, -0)) return n;
  return { N: Object.is(n, -0) ? '-0' : String(n) };
}

const SPECIAL_NUMBERS = { NaN: NaN, Infinity: Infinity, '-Infinity': -Infinity, '-0': -0 };
const KINDS = new Set(['function', 'error-class', 'object', 'promise']);

export class Codec {
  /**
   * `side.proxyOf(id, kind, data)` makes this side's proxy of a peer's handle; `side.promiseOf(id)`
   * this side's promise for a peer's promise. The candidate's side names the class of an object it
   * sends as a handle (`side.namesClasses`), so the judge can tell the owner what it could not
   * compare; the judge's side never names its own.
   */
  constructor(side) {
    this.side = side;
    this.exported = new Map();
    this.exportIds = new Map();
    this.proxies = new Map();
    this.proxyIds = new WeakMap();
    /** Errors made here from a peer's, by the handle of the peer's original. */
    this.errorOrigins = new WeakMap();
    this.peerClasses = new Map();
  }

  export(value) {
    let id = this.exportIds.get(value);
    if (id === undefined) {
      id = this.exported.size + 1;
      this.exported.set(id, value);
      this.exportIds.set(value, id);
    }
    return id;
  }

  /** The handle a value that is not data crosses as. */
  handleOf(value) {
    if (typeof value === 'function') {
      const base = errorClassBase(value);
      if (base !== undefined) {
        let name = '';
        try {
          name = typeof value.name === 'string' ? value.name : '';
        } catch {
          // A name that throws is no name.
        }
        return { H: this.export(value), k: 'error-class', n: name.slice(0, 200), b: base };
      }
      return { H: this.export(value), k: 'function' };
    }
    const kind = types.isPromise(value) && getPrototypeOf(value) === PromiseProto ? 'promise' : 'object';
    // The peer awaits it (a request that comes in its own time): until then its rejection is not unhandled.
    if (kind === 'promise') promiseThen.call(value, undefined, () => undefined);
    const data = { H: this.export(value), k: kind };
    if (kind === 'object' && this.side.namesClasses) {
      try {
        const name = getPrototypeOf(value)?.constructor?.name;
        if (typeof name === 'string') data.n = name.slice(0, 100);
      } catch {
        // A class whose name cannot be read goes unnamed.
      }
    }
    return data;
  }

  encode(value, memo = new Map(), depth = 0) {
    switch (typeof value) {
      case 'undefined':
        return { U: 1 };
      case 'boolean':
      case 'string':
        return value;
      case 'number':
        return encodeNumber(value);
      case 'bigint':
        return { I: value.toString() };
      case 'symbol':
        return { H: this.export(value), k: 'object' };
      default:
        break;
    }
    if (value === null) return null;
    if (depth > MAX_DEPTH) throw new RangeError(`a value nested deeper than ${MAX_DEPTH}`);
    const own = this.proxyIds.get(value) ?? this.errorOrigins.get(value);
    if (own !== undefined) return { P: own };
    if (typeof value === 'function') return this.handleOf(value);
    const seen = memo.get(value);
    if (seen !== undefined) return { R: seen };
    const kind = plainKind(value);
    if (kind === undefined) return this.handleOf(value);
    if (kind === 'D') return { D: encodeNumber(dateTime.call(value)) };
    if (kind === 'B') return this.encode(unboxed(value), memo, depth + 1);
    const number = memo.size + 1;
    memo.set(value, number);
    const next = depth + 1;
    if (kind === 'A') {
      const length = value.length;
      if (length > MAX_ARRAY) throw new RangeError('an array too long for the wire');
      const items = new Array(length);
      for (let i = 0; i < length; i++) items[i] = i in value ? this.encode(value[i], memo, next) : { Z: 1 };
      return { A: items, m: number };
    }
    if (kind === 'O') {
      const pairs = [];
      for (const key of keys(value)) pairs.push([key, this.encode(value[key], memo, next)]);
      return getPrototypeOf(value) === null ? { O: pairs, m: number, n: 1 } : { O: pairs, m: number };
    }
    if (kind === 'M') {
      const pairs = [];
      for (const [k, v] of mapEntries.call(value)) pairs.push([this.encode(k, memo, next), this.encode(v, memo, next)]);
      return { M: pairs, m: number };
    }
    const items = [];
    for (const item of setValues.call(value)) items.push(this.encode(item, memo, next));
    return { S: items, m: number };
  }

  /** A thrown value, as it crosses: an error by its built-in type, message and own properties; anything else as a value. */
  encodeError(error) {
    try {
      if (error === null || (typeof error !== 'object' && typeof error !== 'function'))
        return { v: this.encode(error) };
      const own = this.proxyIds.get(error) ?? this.errorOrigins.get(error);
      if (own !== undefined) return { P: own };
      const base = builtinBase(error);
      if (base === undefined) return { v: this.encode(error) };
      let message = '';
      try {
        message = String(error.message ?? '');
      } catch {
        // A message that throws is no message.
      }
      const data = { t: base, m: message.slice(0, MAX_MESSAGE_CHARS), o: this.export(error) };
      try {
        const ctor = getPrototypeOf(error).constructor;
        if (typeof ctor === 'function' && BUILTIN_ERRORS[base] !== ctor && errorClassBase(ctor) !== undefined) {
          data.c = this.handleOf(ctor);
        }
      } catch {
        // No constructor to name.
      }
      try {
        const pairs = [];
        for (const key of keys(error)) if (key !== 'message' && key !== 'stack') pairs.push([key, error[key]]);
        if (pairs.length) data.p = this.encode(pairs);
      } catch {
        // Properties that cannot be read are left behind.
      }
      return data;
    } catch {
      return { t: 'Error', m: 'an error that could not be read' };
    }
  }

  decode(data, memo = new Map()) {
    return this.decodeValue(data, memo, 0, undefined);
  }

  /** What a call did to an argument of this side's, done to it: `original` refilled from `data`, in place. */
  decodeInto(data, memo, original) {
    return this.decodeValue(data, memo, 0, original);
  }

  decodeValue(data, memo, depth, into) {
    const kind = typeof data;
    if (data === null || kind === 'boolean' || kind === 'string' || kind === 'number') return data;
    if (kind !== 'object' || isArray(data)) throw new WireError('a value that is not of the codec');
    if (depth > MAX_DEPTH) throw new WireError(`a value nested deeper than ${MAX_DEPTH}`);
    const next = depth + 1;
    if ('U' in data) return undefined;
    if ('N' in data) {
      if (!Object.hasOwn(SPECIAL_NUMBERS, data.N)) throw new WireError('a number that is not one');
      return SPECIAL_NUMBERS[data.N];
    }
    if ('I' in data) {
      if (typeof data.I !== 'string' || !/^-?\d{1,100000}$/.test(data.I))
        throw new WireError('a BigInt that is not one');
      return BigInt(data.I);
    }
    if ('D' in data) return new Date(this.decodeValue(data.D, memo, next));
    if ('A' in data) {
      const items = list(data.A);
      const result = isArray(into) ? into : [];
      remember(memo, data, result);
      result.length = 0;
      for (let i = 0; i < items.length; i++) {
        const item = items[i];
        if (item !== null && typeof item === 'object' && 'Z' in item) result.length = i + 1;
        else result[i] = this.decodeValue(item, memo, next);
      }
      return result;
    }
    if ('O' in data) {
      const pairs = list(data.O);
      const plain = into !== null && typeof into === 'object' && plainKind(into) === 'O';
      const result = plain ? into : data.n === 1 ? create(null) : {};
      remember(memo, data, result);
      if (plain) for (const key of keys(result)) delete result[key];
      for (const pair of pairs) {
        if (!isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string')
          throw new WireError('an entry that is not a pair');
        const value = this.decodeValue(pair[1], memo, next);
        defineProperty(result, pair[0], { value, writable: true, enumerable: true, configurable: true });
      }
      // An object whose own valueOf or toString is a peer's function would let `==` ask the peer for a
      // primitive: such an object has none here (a property no comparison of values looks at).
      if (typeof result.valueOf === 'function' && this.proxyIds.has(result.valueOf)) guardPrimitive(result);
      else if (typeof result.toString === 'function' && this.proxyIds.has(result.toString)) guardPrimitive(result);
      return result;
    }
    if ('M' in data) {
      const pairs = list(data.M);
      const result = types.isMap(into) ? into : new Map();
      remember(memo, data, result);
      result.clear();
      for (const pair of pairs) {
        if (!isArray(pair) || pair.length !== 2) throw new WireError('an entry that is not a pair');
        result.set(this.decodeValue(pair[0], memo, next), this.decodeValue(pair[1], memo, next));
      }
      return result;
    }
    if ('S' in data) {
      const items = list(data.S);
      const result = types.isSet(into) ? into : new Set();
      remember(memo, data, result);
      result.clear();
      for (const item of items) result.add(this.decodeValue(item, memo, next));
      return result;
    }
    if ('R' in data) {
      if (!memo.has(data.R)) throw new WireError('a reference to a value not yet sent');
      return memo.get(data.R);
    }
    if ('P' in data) {
      if (!this.exported.has(data.P)) throw new WireError('a handle this side never gave');
      return this.exported.get(data.P);
    }
    if ('H' in data) {
      const id = data.H;
      if (!Number.isSafeInteger(id) || id < 1) throw new WireError('a handle that is not a number');
      if (!KINDS.has(data.k)) throw new WireError('a handle of no kind the wire has');
      let proxy = this.proxies.get(id);
      if (proxy === undefined) {
        proxy = data.k === 'promise' ? this.side.promiseOf(id) : this.side.proxyOf(id, data.k, data);
        this.proxies.set(id, proxy);
        if (data.k !== 'promise') this.proxyIds.set(proxy, id);
      }
      return proxy;
    }
    throw new WireError('a value that is not of the codec');
  }

  /** An exception class of the peer's: a class of this side's, of that name, under its nearest built-in base. */
  peerClass(id, name, base) {
    let cls = this.peerClasses.get(id);
    if (cls) return cls;
    const Base = (typeof base === 'string' && Object.hasOwn(BUILTIN_ERRORS, base) && BUILTIN_ERRORS[base]) || Error;
    cls = class extends Base {};
    defineProperty(cls, 'name', { value: typeof name === 'string' && name ? name.slice(0, 200) : 'PeerError' });
    this.peerClasses.set(id, cls);
    return cls;
  }

  /** The exception a peer's error stands for, made here (or this side's own, come back). */
  decodeError(data) {
    if (data === null || typeof data !== 'object' || isArray(data)) throw new WireError('an error that is not one');
    if ('P' in data) return this.decode(data);
    if ('v' in data) return this.decode(data.v);
    const base = typeof data.t === 'string' && Object.hasOwn(BUILTIN_ERRORS, data.t) ? data.t : 'Error';
    const message = typeof data.m === 'string' ? data.m.slice(0, MAX_MESSAGE_CHARS) : '';
    let cls = BUILTIN_ERRORS[base];
    if (data.c !== undefined) {
      const ctor = data.c;
      if (ctor === null || typeof ctor !== 'object' || !Number.isSafeInteger(ctor.H))
        throw new WireError('an error class that is not one');
      cls = this.peerClass(ctor.H, ctor.n, base);
    }
    const error = cls === AggregateError ? new AggregateError([], message) : new cls(message);
    if (data.p !== undefined) {
      const pairs = this.decode(data.p);
      if (!isArray(pairs)) throw new WireError('error properties that are not a list');
      for (const pair of pairs) {
        if (!isArray(pair) || typeof pair[0] !== 'string') throw new WireError('an entry that is not a pair');
        defineProperty(error, pair[0], { value: pair[1], writable: true, enumerable: true, configurable: true });
      }
    }
    if (Number.isSafeInteger(data.o)) this.errorOrigins.set(error, data.o);
    return error;
  }
}

function noPrimitive() {
  throw new TypeError('a value of the code under test that is not plain data has no primitive value here');
}

function guardPrimitive(object) {
  defineProperty(object, Symbol.toPrimitive, {
    value: noPrimitive,
    writable: false,
    enumerable: false,
    configurable: true,
  });
}

function list(items) {
  if (!isArray(items)) throw new WireError('items that are not a list');
  return items;
}

function remember(memo, data, value) {
  const number = data.m;
  if (!Number.isSafeInteger(number) || memo.has(number)) throw new WireError('a container without a number of its own');
  memo.set(number, value);
}

/** Whether an argument is sent back with a call's result: the containers a call can change in place. */
function echoed(value) {
  if (value === null || typeof value !== 'object') return false;
  const kind = plainKind(value);
  return kind === 'A' || kind === 'O' || kind === 'M' || kind === 'S';
}

/** Calls `target` as a request asks (`a` arguments, `this` from `h`, `new` when `op` is "new"); the reply, with the changed arguments. */
export function invoke(codec, target, message) {
  const memo = new Map();
  const args = codec.decode(message.a ?? { A: [], m: 0 }, memo);
  if (!isArray(args)) throw new WireError('arguments that are not a list');
  const self = 'h' in message ? codec.decode(message.h, memo) : undefined;
  const result = message.op === 'new' ? Reflect.construct(target, args) : Reflect.apply(target, self, args);
  const out = new Map();
  const echo = [];
  for (let i = 0; i < args.length; i++) if (echoed(args[i])) echo.push([i, codec.encode(args[i], out)]);
  const reply = { v: codec.encode(result, out) };
  if (echo.length) reply.e = echo;
  return reply;
}

/** The request that calls a peer's function: arguments (and `this`) encoded in one go. */
export function callFields(codec, id, self, args) {
  const memo = new Map();
  const fields = { t: id, a: codec.encode(args, memo) };
  if (self !== undefined) fields.h = codec.encode(self, memo);
  return fields;
}

/** A reply read: its value, or its error thrown; what the call did to the caller's arguments done to them. */
export function settle(codec, reply, args = []) {
  if ('x' in reply) throw codec.decodeError(reply.x);
  const memo = new Map();
  if (reply.e !== undefined) {
    for (const pair of list(reply.e)) {
      if (!isArray(pair) || pair.length !== 2 || !Number.isSafeInteger(pair[0]))
        throw new WireError('an echo entry that is not a pair');
      const original = args[pair[0]];
      codec.decodeInto(pair[1], memo, echoed(original) ? original : undefined);
    }
  }
  return codec.decode(reply.v, memo);
}

/**
 * Calls across the wire, both ways, on two descriptors. `request` sends a request and waits for its
 * reply, blocked, answering the peer's requests meanwhile; `requestAsync` sends one whose reply comes
 * when it comes (a promise's settling). `handleRequest(message)` is the side's own: it answers one
 * request, with a reply, or a promise of one.
 */
export class Connection {
  constructor({ readFd, writeFd, codec, handleRequest, callMs, onBroken, keepAlive = false }) {
    this.writeFd = writeFd;
    this.codec = codec;
    this.handleRequest = handleRequest;
    this.callMs = callMs;
    this.onBroken = onBroken ?? (() => undefined);
    this.keepAlive = keepAlive;
    this.nextId = 0;
    this.broken = null;
    this.gone = false;
    this.replies = new Map();
    this.waiting = new Set();
    this.pending = new Map();
    this.goneListeners = [];
    this.flag = new Int32Array(new SharedArrayBuffer(4));
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(new URL('./wire-reader.mjs', import.meta.url), {
      workerData: { fd: readFd, port: port2, flag: this.flag, maxFrame: MAX_FRAME },
      transferList: [port2],
      // Small limits: the sandbox bounds address space, and V8 reserves a worker's code range up front.
      resourceLimits: { codeRangeSizeMb: 8, maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4, stackSizeMb: 1 },
      stdout: false,
      stderr: false,
    });
    this.worker.unref();
    this.worker.on('error', () => undefined);
    port1.on('message', (raw) => this.fromEventLoop(raw));
    if (!keepAlive) port1.unref();
  }

  send(message) {
    const body = Buffer.from(stringify(message), 'utf8');
    if (body.length > MAX_FRAME)
      throw new RangeError(`a message of ${body.length} bytes is larger than the wire allows`);
    const frame = Buffer.allocUnsafe(4 + body.length);
    frame.writeUInt32BE(body.length, 0);
    body.copy(frame, 4);
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let written = 0; written < frame.length;) {
      try {
        written += fs.writeSync(this.writeFd, frame, written, frame.length - written);
      } catch (error) {
        if (error?.code === 'EAGAIN') {
          Atomics.wait(pause, 0, 0, 1);
          continue;
        }
        throw new PeerGone('the peer closed the wire');
      }
    }
  }

  /** The next frame, parsed; blocks until there is one (or the deadline passes). */
  nextFrame(deadline) {
    for (;;) {
      const seen = Atomics.load(this.flag, 0);
      const got = receiveMessageOnPort(this.port);
      if (got !== undefined) return this.parsed(got.message);
      const left = deadline === undefined ? undefined : deadline - Date.now();
      if (left !== undefined && left <= 0) throw new PeerTimeout('no answer in time');
      Atomics.wait(this.flag, 0, seen, left);
    }
  }

  parsed(raw) {
    if (typeof raw !== 'string') {
      if (raw?.error) throw new WireError(raw.error);
      this.markGone();
      throw new PeerGone('the peer closed the wire');
    }
    let message;
    try {
      message = parse(raw);
    } catch {
      throw new WireError('a frame that is not JSON');
    }
    if (message === null || typeof message !== 'object' || isArray(message))
      throw new WireError('a frame that is not a message');
    return message;
  }

  markGone() {
    if (this.gone) return;
    this.gone = true;
    this.port.unref();
    for (const listener of this.goneListeners.splice(0)) listener();
  }

  dispatch(message) {
    if ('op' in message) {
      this.answer(message);
      return;
    }
    const id = message.re;
    const pending = this.pending.get(id);
    if (pending !== undefined) {
      this.pending.delete(id);
      this.settled();
      pending.done(message);
      return;
    }
    if (!this.waiting.has(id) || this.replies.has(id)) throw new WireError('a reply to a request that was not waiting');
    this.replies.set(id, message);
  }

  answer(message) {
    const id = message.i;
    let reply;
    try {
      reply = this.handleRequest(message);
    } catch (error) {
      if (error instanceof WireError || error instanceof PeerGone || error instanceof PeerTimeout) throw error;
      reply = { x: this.codec.encodeError(error) };
    }
    if (reply === undefined) return;
    if (types.isPromise(reply)) {
      reply.then(
        (value) => this.reply(id, value),
        (error) => {
          if (error instanceof WireError) this.fail(error);
          else this.reply(id, { x: this.codec.encodeError(error) });
        },
      );
      return;
    }
    this.reply(id, reply);
  }

  reply(id, reply) {
    if (this.gone || this.broken) return;
    try {
      this.send({ ...reply, re: id });
    } catch (error) {
      if (error instanceof RangeError) this.send({ re: id, x: this.codec.encodeError(error) });
      else this.fail(error);
    }
  }

  /** Sends a request and waits, blocked, for its reply: the peer's own requests are answered meanwhile. */
  request(op, fields = {}) {
    if (this.broken) throw this.broken;
    const id = ++this.nextId;
    this.waiting.add(id);
    try {
      this.send({ op, i: id, ...fields });
      const deadline = this.callMs === undefined ? undefined : Date.now() + this.callMs;
      while (!this.replies.has(id)) this.dispatch(this.nextFrame(deadline));
    } catch (error) {
      if (error instanceof WireError || error instanceof PeerGone || error instanceof PeerTimeout) this.fail(error);
      throw error;
    } finally {
      this.waiting.delete(id);
    }
    const reply = this.replies.get(id);
    this.replies.delete(id);
    return reply;
  }

  /** Sends a request whose reply is awaited: the side keeps reading the wire from its event loop until it comes. */
  requestAsync(op, fields, timeoutMs) {
    return new Promise((resolve, reject) => {
      if (this.broken) {
        reject(this.broken);
        return;
      }
      const id = ++this.nextId;
      const timer =
        timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              if (!this.pending.delete(id)) return;
              // A peer past its time limit is not waited on again (a blocked request's timeout does the
              // same): the wire breaks, and every call after fails at once with this reason.
              const error = new PeerTimeout('not settled in time');
              this.fail(error);
              reject(error);
            }, timeoutMs);
      this.pending.set(id, {
        done: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
        fail: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.port.ref();
      try {
        this.send({ op, i: id, ...fields });
      } catch (error) {
        this.pending.delete(id);
        this.settled();
        clearTimeout(timer);
        reject(error);
        if (error instanceof PeerGone) this.fail(error);
      }
    });
  }

  settled() {
    if (this.pending.size === 0 && !this.keepAlive) this.port.unref();
  }

  fromEventLoop(raw) {
    if (this.broken) {
      if (typeof raw !== 'string' && raw?.gone) this.markGone();
      return;
    }
    try {
      this.dispatch(this.parsed(raw));
    } catch (error) {
      this.fail(error);
    }
  }

  /** The wire is of no more use: every awaited reply fails with `error`. */
  fail(error) {
    if (this.broken) return;
    this.broken = error;
    if (error instanceof PeerGone) this.markGone();
    this.onBroken(error);
    const pending = [...this.pending.values()];
    this.pending.clear();
    this.settled();
    for (const p of pending) p.fail(error);
  }

  /** Resolves once the peer's end of the wire has closed (or `ms` passed: false). */
  whenGone(ms) {
    if (this.gone) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      this.port.ref();
      this.goneListeners.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
