"""The candidate: the code under test, loaded here and reached by the judge only over the wire.

Run by the worker as the session's own user, in the session's sandbox on the clean room, never
beside the hidden tests:

    python3 -I -S -B candidate.py <code folder> <wire in fd> <wire out fd>

It imports what the judge asks for, calls what the judge calls, reads the attributes the judge reads,
and sends back values (plain ones as data, anything else as a handle). Whatever the code under test
does here, it does in this process: it cannot reach the judge's memory, files or descriptors, and
nothing it prints, writes or exits with is read as a result.
"""

import os
import sys


def main():
    code_dir, read_fd, write_fd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    # -I leaves the script's folder off the path: the wire is taken from the harness, then the code
    # under test goes after the standard library, so it cannot shadow either.
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
    import importlib

    import arena_wire

    sys.path.append(os.path.realpath(code_dir))
    os.chdir(code_dir)

    connection = None

    class JudgeProxy:
        """A callable of the judge's (a test's fake clock, say): calling it is a request to the judge."""

        __slots__ = ("_arena_peer_handle",)

        def __init__(self, handle):
            self._arena_peer_handle = handle

        def __call__(self, *args, **kwargs):
            return arena_wire.call_peer(connection, codec, self._arena_peer_handle, args, kwargs)

        def __repr__(self):
            return "<a callable of the judge's>"

    codec = arena_wire.Codec(lambda handle, kind, class_name: JudgeProxy(handle), names_classes=True)

    DUNDERS = {
        "len": len,
        "iter": iter,
        "next": next,
        "bool": bool,
        "str": str,
        "getitem": lambda target, key: target[key],
        "setitem": lambda target, key, value: target.__setitem__(key, value),
        "delitem": lambda target, key: target.__delitem__(key),
        "contains": lambda target, item: item in target,
    }

    def handle(message):
        try:
            op = message.get("op")
            if op == "import":
                module = importlib.import_module(str(message.get("n")))
                return {"v": codec.encode(module), "pkg": hasattr(module, "__path__")}
            target = codec.exported.get(message.get("t"))
            if target is None:
                return {"x": {"t": "LookupError", "b": ["LookupError"], "m": "no such handle"}}
            if op == "get":
                return {"v": codec.encode(getattr(target, str(message.get("n"))))}
            if op == "call":
                return arena_wire.invoke(codec, target, message)
            if op == "dunder" and message.get("m") in DUNDERS:
                args = codec.decode(message["a"], {}) if "a" in message else []
                if type(args) is not list:
                    raise arena_wire.WireError("arguments that are not a list")
                return {"v": codec.encode(DUNDERS[message["m"]](target, *args))}
            return {"x": {"t": "TypeError", "b": ["TypeError"], "m": "an operation the candidate does not take"}}
        except arena_wire.WireError:
            raise
        except (arena_wire.PeerGone, arena_wire.PeerTimeout):
            raise
        except BaseException as error:
            return {"x": codec.encode_error(error)}

    connection = arena_wire.Connection(arena_wire.Channel(read_fd, write_fd), codec, handle)
    try:
        connection.serve()
    except (arena_wire.WireError, arena_wire.PeerGone):
        pass
    # However the code under test left the interpreter: no exit handler of its runs.
    os._exit(0)


if __name__ == "__main__":
    main()
