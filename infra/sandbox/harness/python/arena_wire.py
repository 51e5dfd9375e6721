"""The wire between the judge and the candidate: frames, the value codec and calls across processes.

The judge runs the hidden tests; the candidate runs the code under test, as another user in a sandbox
of its own. They speak over two pipes in length-prefixed JSON frames. A value crosses as data when it
is plain (None, booleans, integers of any size, floats with NaN, the infinities and -0, strings,
bytes, complex numbers, and lists, tuples, dicts, sets and frozensets of plain values), decoded on
the other side into objects of its own making: no class of the peer's ever crosses. A value of a
subclass of a plain type (an IntEnum member, a `class Days(int)`) crosses as the plain value it
holds, read with the base type's own methods, and a numpy-style scalar as its `.item()`: what the
subclass overrides (`__eq__`, `__str__`, `__iter__`) is not the value, and decides nothing. Anything else
crosses as an opaque handle: the peer gets a proxy it can call, and (the judge only) read attributes
of, each use a message back. Exceptions cross as their built-in type (or a name, for a class of the
peer's own, under its nearest built-in base) and message. The codec is data only (no pickle, no
eval), with bounded frames and depth.

Mutable arguments (lists, dicts, sets, bytearrays) are sent back with the result, in one frame with
it, so a caller sees what a call did to them, and which parts of the result are its arguments' own
(a test that a function leaves its input alone, or does not share it with its result, still works).
"""

import base64
import builtins
import collections
import json
import os
import select
import struct
import time

#: The largest frame either side accepts, and how deep a value may nest.
MAX_FRAME = 16 * 1024 * 1024
MAX_DEPTH = 200
MAX_MESSAGE_CHARS = 2000

_MUTABLE = (list, dict, set, bytearray)
_IMMUTABLE = (int, float, complex, str, bytes, tuple, frozenset)


def _plain_base(kind):
    """The plain type a value of `kind` is an instance of (itself, or the base a subclass derives from), or None."""
    if kind in _MUTABLE or kind in _IMMUTABLE:
        return kind
    for base in _MUTABLE + _IMMUTABLE:
        if issubclass(kind, base):
            return base
    return None


def _scalar_of(base, value):
    """The plain scalar a value of a subclass of int, float, complex, str or bytes holds, by the base's own methods."""
    if base is int:
        return int.__index__(value)
    if base is float:
        return float.__float__(value)
    if base is complex:
        real, imag = complex.__getnewargs__(value)
        return complex(real, imag)
    if base is str:
        return str.__str__(value)
    return bytes.__getitem__(value, slice(None))


def _numpy_generic(kind):
    """numpy's scalar base class when `kind` derives from it (known by name: numpy may not be installed here)."""
    for cls in kind.__mro__:
        if cls.__name__ == "generic" and cls.__module__ == "numpy":
            return cls
    return None


_SCALARS = (type(None), bool, int, float, complex, str, bytes)


class WireError(Exception):
    """The peer broke the protocol (a malformed or oversized frame, a reply to nothing, a forbidden request)."""


class PeerGone(Exception):
    """The peer's end of the pipe closed: it exited, or was killed."""


class PeerTimeout(Exception):
    """The peer did not answer in time."""


class PeerExit(Exception):
    """The peer's code raised SystemExit, KeyboardInterrupt or GeneratorExit: never re-raised as such here."""


class Channel:
    """Frames on two file descriptors: a 4-byte big-endian length, then that many bytes of ASCII JSON."""

    def __init__(self, read_fd, write_fd):
        self.read_fd = read_fd
        self.write_fd = write_fd

    def send(self, message):
        data = json.dumps(message, ensure_ascii=True, allow_nan=True, separators=(",", ":")).encode("ascii")
        if len(data) > MAX_FRAME:
            raise ValueError("a message of %d bytes is larger than the wire allows" % len(data))
        data = struct.pack(">I", len(data)) + data
        while data:
            try:
                data = data[os.write(self.write_fd, data):]
            except BrokenPipeError:
                raise PeerGone()

    def _read(self, count, deadline):
        chunks = []
        while count > 0:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.read_fd], [], [], left)[0]:
                    raise PeerTimeout()
            chunk = os.read(self.read_fd, min(count, 1 << 20))
            if not chunk:
                raise PeerGone()
            chunks.append(chunk)
            count -= len(chunk)
        return b"".join(chunks)

    def receive(self, deadline=None):
        (length,) = struct.unpack(">I", self._read(4, deadline))
        if length > MAX_FRAME:
            raise WireError("a frame of %d bytes, past the wire's limit" % length)
        try:
            message = json.loads(self._read(length, deadline).decode("ascii"))
        except (ValueError, RecursionError):
            raise WireError("a frame that is not JSON")
        if type(message) is not dict:
            raise WireError("a frame that is not a message")
        return message


def _builtin_bases(cls):
    """The built-in exception classes `cls` derives from, nearest first."""
    return [
        base.__name__
        for base in cls.__mro__
        if getattr(builtins, base.__name__, None) is base and issubclass(base, BaseException)
    ]


class Codec:
    """
    Values to data and back, for one side; `proxy_of(handle, kind, class_name)` makes the local proxy
    of a peer's handle. The candidate's side names the class of an object it sends as a handle, so the
    judge can tell the owner what it could not compare; the judge's side never names its own.
    """

    def __init__(self, proxy_of, names_classes=False):
        self.proxy_of = proxy_of
        self.names_classes = names_classes
        self.exported = {}
        self.export_ids = {}
        self.proxies = {}
        self.peer_classes = {}

    # --- encoding -------------------------------------------------------------------------

    def export(self, value):
        key = id(value)
        handle = self.export_ids.get(key)
        if handle is None:
            handle = len(self.exported) + 1
            self.exported[handle] = value
            self.export_ids[key] = handle
        return handle

    def handle_of(self, value):
        """How a value that is not data crosses: its handle, with what kind of thing it is."""
        if isinstance(value, type) and issubclass(value, BaseException):
            kind = "exception-class"
        elif isinstance(value, type):
            kind = "class"
        elif type(value).__name__ == "module":
            kind = "module"
        elif callable(value):
            kind = "callable"
        else:
            kind = "object"
        data = {"H": self.export(value), "k": kind}
        if kind == "exception-class":
            data["n"] = value.__name__
            data["b"] = _builtin_bases(value)
        elif self.names_classes and kind in ("object", "callable"):
            name = getattr(type(value), "__name__", None)
            if type(name) is str:
                data["n"] = name[:100]
        return data

    def encode(self, value, memo=None):
        return self._encode(value, {} if memo is None else memo, 0)

    def _encode(self, value, memo, depth):
        kind = type(value)
        if value is None or kind is bool or kind is int or kind is float or kind is str:
            return value
        if depth > MAX_DEPTH:
            raise ValueError("a value nested deeper than %d" % MAX_DEPTH)
        base = _plain_base(kind)
        if base in _MUTABLE:
            seen = memo.get(id(value))
            if seen is not None:
                return {"R": seen[0]}
            # The value is kept alive with its number, so no other object can reuse its id meanwhile.
            memo[id(value)] = (len(memo) + 1, value)
            number = len(memo)
            # Read through the base type's own methods: a subclass's __iter__ or items() is not its contents.
            if base is list:
                return {"L": [self._encode(item, memo, depth + 1) for item in list.__iter__(value)], "m": number}
            if base is dict:
                items = collections.OrderedDict.items if issubclass(kind, collections.OrderedDict) else dict.items
                return {
                    "D": [[self._encode(k, memo, depth + 1), self._encode(v, memo, depth + 1)] for k, v in items(value)],
                    "m": number,
                }
            if base is set:
                return {"S": [self._encode(item, memo, depth + 1) for item in set.__iter__(value)], "m": number}
            return {"BA": base64.b64encode(bytearray.__getitem__(value, slice(None))).decode("ascii"), "m": number}
        if base is tuple:
            return {"T": [self._encode(item, memo, depth + 1) for item in tuple.__iter__(value)]}
        if base is frozenset:
            return {"F": [self._encode(item, memo, depth + 1) for item in frozenset.__iter__(value)]}
        if base is not None and kind is not base:
            return self._encode(_scalar_of(base, value), memo, depth + 1)
        if kind is bytes:
            return {"B": base64.b64encode(value).decode("ascii")}
        if kind is complex:
            return {"C": [value.real, value.imag]}
        own = getattr(value, "_arena_peer_handle", None)
        if own is not None and self.proxies.get(own) is value:
            return {"P": own}
        generic = _numpy_generic(kind)
        if generic is not None:
            try:
                item = generic.item(value)
            except Exception:
                item = value
            if type(item) in _SCALARS or _plain_base(type(item)) in _IMMUTABLE:
                return self._encode(item, memo, depth + 1)
        return self.handle_of(value)

    def encode_error(self, error):
        cls = type(error)
        try:
            message = str(error)
        except BaseException:
            message = ""
        data = {"t": cls.__name__, "b": _builtin_bases(cls), "m": message[:MAX_MESSAGE_CHARS]}
        if getattr(builtins, cls.__name__, None) is not cls:
            data["c"] = self.export(cls)
        return data

    # --- decoding -------------------------------------------------------------------------

    def decode(self, data, memo=None):
        return self._decode(data, {} if memo is None else memo, 0)

    def _decode(self, data, memo, depth):
        kind = type(data)
        if data is None or kind is bool or kind is int or kind is float or kind is str:
            return data
        if depth > MAX_DEPTH:
            raise WireError("a value nested deeper than %d" % MAX_DEPTH)
        if kind is not dict:
            raise WireError("a value that is not of the codec")
        if "L" in data:
            result = []
            self._remember(memo, data, result)
            result.extend(self._decode(item, memo, depth + 1) for item in self._items(data["L"]))
            return result
        if "D" in data:
            result = {}
            self._remember(memo, data, result)
            for pair in self._items(data["D"]):
                if type(pair) is not list or len(pair) != 2:
                    raise WireError("a dict entry that is not a pair")
                key = self._decode(pair[0], memo, depth + 1)
                try:
                    result[key] = self._decode(pair[1], memo, depth + 1)
                except TypeError:
                    raise WireError("a dict key that cannot be one")
            return result
        if "S" in data:
            result = set()
            self._remember(memo, data, result)
            try:
                result.update(self._decode(item, memo, depth + 1) for item in self._items(data["S"]))
            except TypeError:
                raise WireError("a set member that cannot be one")
            return result
        if "BA" in data:
            result = bytearray(self._bytes(data["BA"]))
            self._remember(memo, data, result)
            return result
        if "R" in data:
            found = memo.get(data["R"])
            if found is None:
                raise WireError("a reference to a value not yet sent")
            return found
        if "T" in data:
            return tuple(self._decode(item, memo, depth + 1) for item in self._items(data["T"]))
        if "F" in data:
            try:
                return frozenset(self._decode(item, memo, depth + 1) for item in self._items(data["F"]))
            except TypeError:
                raise WireError("a frozenset member that cannot be one")
        if "B" in data:
            return self._bytes(data["B"])
        if "C" in data:
            parts = data["C"]
            if type(parts) is not list or len(parts) != 2 or not all(type(p) in (int, float) for p in parts):
                raise WireError("a complex number that is not two numbers")
            return complex(parts[0], parts[1])
        if "P" in data:
            value = self.exported.get(data["P"])
            if value is None:
                raise WireError("a handle this side never gave")
            return value
        if "H" in data:
            handle = data["H"]
            if type(handle) is not int:
                raise WireError("a handle that is not a number")
            if data.get("k") == "exception-class":
                return self.peer_class(handle, data.get("n"), data.get("b"))
            proxy = self.proxies.get(handle)
            if proxy is None:
                proxy = self.proxy_of(handle, data.get("k"), data.get("n"))
                self.proxies[handle] = proxy
            return proxy
        raise WireError("a value that is not of the codec")

    @staticmethod
    def _items(items):
        if type(items) is not list:
            raise WireError("items that are not a list")
        return items

    @staticmethod
    def _bytes(text):
        if type(text) is not str:
            raise WireError("bytes that are not base64")
        try:
            return base64.b64decode(text.encode("ascii"), validate=True)
        except ValueError:
            raise WireError("bytes that are not base64")

    @staticmethod
    def _remember(memo, data, value):
        number = data.get("m")
        if type(number) is not int or number in memo:
            raise WireError("a container without a number of its own")
        memo[number] = value

    def peer_class(self, handle, name, bases):
        """An exception class of the peer's: a class of this side's own, under its nearest built-in base."""
        cls = self.peer_classes.get(handle)
        if cls is not None:
            return cls
        base = Exception
        for base_name in bases if type(bases) is list else []:
            candidate = getattr(builtins, base_name, None) if type(base_name) is str else None
            if isinstance(candidate, type) and issubclass(candidate, Exception):
                base = candidate
                break
        cls = type(name if type(name) is str and name.isidentifier() else "PeerError", (base,), {})
        cls._arena_peer_handle = handle
        self.peer_classes[handle] = cls
        return cls

    def decode_error(self, data):
        """The exception a peer's error stands for, made here: a built-in type, or a class of this side's naming it."""
        if type(data) is not dict:
            raise WireError("an error that is not one")
        name = data.get("t") if type(data.get("t")) is str else "Exception"
        message = data.get("m") if type(data.get("m")) is str else ""
        bases = data.get("b") if type(data.get("b")) is list else []
        if name in ("SystemExit", "KeyboardInterrupt", "GeneratorExit"):
            return PeerExit("%s: %s" % (name, message))
        own = data.get("c")
        if type(own) is int:
            cls = self.peer_class(own, name, bases)
        else:
            cls = getattr(builtins, name, None)
            if not (isinstance(cls, type) and issubclass(cls, Exception)):
                cls = Exception
        try:
            return cls(message)
        except Exception:
            return Exception(message)


def apply_echo(original, new):
    """What a call did to a mutable argument, done to the caller's own: its contents replaced in place."""
    if type(original) is list and type(new) is list:
        original[:] = new
    elif type(original) is dict and type(new) is dict:
        original.clear()
        original.update(new)
    elif type(original) is set and type(new) is set:
        original.clear()
        original.update(new)
    elif type(original) is bytearray and type(new) is bytearray:
        original[:] = new


class Connection:
    """
    Calls across the wire, both ways: `request` sends one and waits for its reply, answering the
    peer's own requests meanwhile (a call may call back); `serve` answers requests until the pipe
    closes. `handle_request(message)` is the side's own: it answers one request.
    """

    def __init__(self, channel, codec, handle_request, call_seconds=None):
        self.channel = channel
        self.codec = codec
        self.handle_request = handle_request
        self.call_seconds = call_seconds
        self.next_id = 0
        self.broken = None

    def request(self, op, **fields):
        if self.broken:
            raise self.broken
        self.next_id += 1
        number = self.next_id
        message = {"op": op, "i": number}
        message.update(fields)
        deadline = None if self.call_seconds is None else time.monotonic() + self.call_seconds
        try:
            self.channel.send(message)
            while True:
                incoming = self.channel.receive(deadline)
                if "op" in incoming:
                    self.answer(incoming)
                    continue
                if incoming.get("re") != number:
                    raise WireError("a reply to a request that was not waiting")
                return incoming
        except (PeerGone, PeerTimeout, WireError) as error:
            self.broken = error
            raise

    def answer(self, message):
        reply = self.handle_request(message)
        reply["re"] = message.get("i")
        self.channel.send(reply)

    def serve(self):
        while True:
            try:
                message = self.channel.receive()
            except PeerGone:
                return
            if "op" not in message:
                raise WireError("a reply when no request was waiting")
            self.answer(message)


def invoke(codec, target, message):
    """Calls `target` with the message's arguments; the result and the mutable arguments go back in one frame."""
    memo = {}
    args = codec.decode(message["a"], memo) if "a" in message else []
    pairs = codec.decode(message["k"], memo) if "k" in message else []
    if type(args) is not list or type(pairs) is not list:
        return {"x": {"t": "TypeError", "b": ["TypeError"], "m": "arguments that are not a list"}}
    if not all(type(pair) is list and len(pair) == 2 and type(pair[0]) is str for pair in pairs):
        return {"x": {"t": "TypeError", "b": ["TypeError"], "m": "keyword arguments that are not name-value pairs"}}
    kwargs = dict(pairs)
    result = target(*args, **kwargs)
    out = {}
    reply = {"v": codec.encode(result, out)}
    echo = [[i, codec.encode(arg, out)] for i, arg in enumerate(args) if type(arg) in (list, dict, set, bytearray)]
    echo += [[name, codec.encode(arg, out)] for name, arg in kwargs.items() if type(arg) in (list, dict, set, bytearray)]
    if echo:
        reply["e"] = echo
    return reply


def call_peer(connection, codec, handle, args, kwargs):
    """Calls a callable of the peer's with these arguments; what it did to the mutable ones is done here too."""
    memo = {}
    encoded_args = codec.encode(list(args), memo)
    encoded_kwargs = codec.encode([[k, v] for k, v in kwargs.items()], memo)
    reply = connection.request("call", t=handle, a=encoded_args, k=encoded_kwargs)
    return settle(codec, reply, args, kwargs)


def settle(codec, reply, args, kwargs):
    """A call's reply, read: its value (or its error, raised), with its arguments' echo applied."""
    if "x" in reply:
        raise codec.decode_error(reply["x"])
    # One memo for the value and the echo, in the order they were written: what they share is shared here.
    memo = {}
    value = codec.decode(reply.get("v"), memo)
    echo = reply.get("e", [])
    if type(echo) is not list:
        raise WireError("an echo that is not a list")
    for pair in echo:
        if type(pair) is not list or len(pair) != 2 or type(pair[0]) not in (int, str):
            raise WireError("an echo entry that is not a pair")
        key, new = pair[0], codec.decode(pair[1], memo)
        original = args[key] if type(key) is int and 0 <= key < len(args) else kwargs.get(key)
        apply_echo(original, new)
    return value
