"""The judge: runs a Python task's hidden tests with unittest, on code it reaches only over the wire.

Run by the worker in a sandbox of its own, as a user that is not the session's, with the hidden tests
and the harness and nothing of the workspace:

    python3 -I -S -B judge.py <hidden tests folder> <report fd> <wire in fd> <wire out fd> <scratch folder>

(the nonce on stdin). The scratch folder is where the tests' temporary files go: the candidate can
read it, so a test can hand the code under test a file it wrote.

A hidden test's `import calendar_utils` is answered by the candidate process (candidate.py), which
loads the code under test as the session's user: the test gets a proxy, and every call, attribute
read or iteration on it is a message. Values come back as data this process decodes into objects of
its own; anything else stays a handle, which is never equal to a value, has no truth value, and
runs nothing here. So the tests, every comparison and the count of passes are this process's own:
the code under test cannot patch them, read them, or write the report. A candidate that breaks the
protocol (a malformed message, a request the judge does not take) is marked tampered with; one that
dies or hangs fails the test that waited on it, and every test after it.
"""

import os
import sys

#: The longest one call to the candidate may take before the test that made it fails.
CALL_SECONDS = 30

#: The arena's own sentences for a run found tampered with: never words the code under test chose.
BROKE_PROTOCOL = "the code under test sent the judge a message the protocol does not allow"

#: How many values the judge could not compare it names, for the owner alone.
MAX_UNCOMPARED = 5

#: What a test's plain value is, as the owner's note says the judge could not compare a handle with it.
PLAIN_KINDS = {
    bool: "a boolean",
    int: "a number",
    float: "a number",
    complex: "a number",
    str: "a string",
    bytes: "bytes",
    bytearray: "bytes",
    list: "a list",
    tuple: "a tuple",
    dict: "a dict",
    set: "a set",
    frozenset: "a set",
    type(None): "None",
}


def class_named(name):
    """How the owner's note names a class of the code's: its name when it reads as one, in backticks."""
    if isinstance(name, str) and 0 < len(name) <= 40 and name.isascii() and name.isidentifier():
        return "a `%s`" % name
    return "an object of its own class"


def read_nonce():
    line = sys.stdin.readline().strip()
    sys.stdin.close()
    return line


def main():
    tests_dir, report_fd = sys.argv[1], int(sys.argv[2])
    read_fd, write_fd, scratch = int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    # A shorter limit for the harness's own tests; scoring gives none.
    call_seconds = float(sys.argv[6]) if len(sys.argv) > 6 else CALL_SECONDS
    nonce = read_nonce()
    not_dumpable()
    sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
    share_temporary_files(scratch)

    import importlib.machinery
    import json
    import types
    import unittest
    import unittest.loader
    import unittest.result
    import unittest.suite

    import arena_wire

    state = {"tampered": None, "detail": None, "uncompared": []}

    def uncompared(value, what):
        """Notes, for the owner, a value of the code's the judge could not use as the test's plain value."""
        note = "returned %s, which the judge cannot %s" % (class_named(value._arena_class), what)
        if note not in state["uncompared"] and len(state["uncompared"]) < MAX_UNCOMPARED:
            state["uncompared"].append(note)

    class CandidateBroke(Exception):
        """The candidate cannot answer any more: it broke the protocol, died or hung."""

    def request(op, **fields):
        try:
            reply = connection.request(op, **fields)
        except arena_wire.WireError as error:
            if state["tampered"] is None:
                state["tampered"], state["detail"] = BROKE_PROTOCOL, str(error)
            raise CandidateBroke("the code under test broke the judge's protocol") from None
        except arena_wire.PeerGone:
            raise CandidateBroke("the code under test's process ended") from None
        except arena_wire.PeerTimeout:
            raise CandidateBroke("the code under test did not answer within %g s" % call_seconds) from None
        except arena_wire.PeerExit as error:
            raise CandidateBroke(str(error)) from None
        return reply

    def settled(reply, args=(), kwargs=None):
        try:
            return arena_wire.settle(codec, reply, list(args), kwargs or {})
        except arena_wire.WireError as error:
            if state["tampered"] is None:
                state["tampered"], state["detail"] = BROKE_PROTOCOL, str(error)
            connection.broken = error
            raise CandidateBroke("the code under test broke the judge's protocol") from None
        except arena_wire.PeerExit as error:
            raise CandidateBroke(str(error)) from None

    def dunder(handle, name, *args):
        return settled(request("dunder", t=handle, m=name, a=codec.encode(list(args))))

    class CandidateValue:
        """A value of the candidate's that is not plain data: reached only by messages."""

        __slots__ = ("_arena_peer_handle", "_arena_kind", "_arena_class", "__weakref__")

        def __init__(self, handle, kind, class_name):
            self._arena_peer_handle = handle
            self._arena_kind = kind
            self._arena_class = class_name

        def __eq__(self, other):
            # Never equal to a value (identity decides, as before): noted, so the owner learns why a test failed.
            if type(other) in PLAIN_KINDS:
                uncompared(self, "compare as %s" % PLAIN_KINDS[type(other)])
            return NotImplemented

        __hash__ = object.__hash__

        def __getattr__(self, name):
            # Protocols the judge's own libraries probe for (__deepcopy__, __length_hint__) are not the candidate's to answer.
            if name.startswith("__") and name.endswith("__"):
                raise AttributeError(name)
            return settled(request("get", t=self._arena_peer_handle, n=name))

        def __call__(self, *args, **kwargs):
            memo = {}
            encoded = codec.encode(list(args), memo)
            named = codec.encode([[k, v] for k, v in kwargs.items()], memo)
            return settled(request("call", t=self._arena_peer_handle, a=encoded, k=named), args, kwargs)

        def __iter__(self):
            return dunder(self._arena_peer_handle, "iter")

        def __next__(self):
            return dunder(self._arena_peer_handle, "next")

        def __len__(self):
            return dunder(self._arena_peer_handle, "len")

        def __getitem__(self, key):
            return dunder(self._arena_peer_handle, "getitem", key)

        def __setitem__(self, key, value):
            dunder(self._arena_peer_handle, "setitem", key, value)

        def __delitem__(self, key):
            dunder(self._arena_peer_handle, "delitem", key)

        def __contains__(self, item):
            return dunder(self._arena_peer_handle, "contains", item)

        def __str__(self):
            return dunder(self._arena_peer_handle, "str")

        def __bool__(self):
            # An object that calls itself true would pass assertTrue without being True.
            uncompared(self, "read as a boolean")
            raise TypeError("a value of the code under test that is not plain data has no truth value here")

        def __repr__(self):
            return "<the code under test's %s>" % self._arena_kind

    class CandidateModule(types.ModuleType):
        """A module of the code under test: its attributes are read from the candidate."""

        def __getattr__(self, name):
            if name.startswith("__") and name.endswith("__"):
                raise AttributeError(name)
            handle = self.__dict__.get("_arena_peer_handle")
            return settled(request("get", t=handle, n=name))

    def proxy_of(handle, kind, class_name):
        if kind == "module":
            module = CandidateModule("candidate")
            module._arena_peer_handle = handle
            return module
        return CandidateValue(handle, kind if isinstance(kind, str) else "value", class_name)

    def handle_request(message):
        # The candidate may only call what the judge gave it (a test's fake clock): nothing else.
        if message.get("op") != "call":
            raise arena_wire.WireError("a request the judge does not take")
        target = codec.exported.get(message.get("t"))
        if target is None or not callable(target):
            raise arena_wire.WireError("a call to something the judge never gave")
        try:
            return arena_wire.invoke(codec, target, message)
        except arena_wire.WireError:
            raise
        except BaseException as error:
            return {"x": codec.encode_error(error)}

    codec = arena_wire.Codec(proxy_of)
    connection = arena_wire.Connection(
        arena_wire.Channel(read_fd, write_fd), codec, handle_request, call_seconds=call_seconds
    )

    # The import system needs only these methods: importlib.abc would cost 20 ms of imports a run.
    class CandidateLoader:
        def __init__(self, module):
            self.module = module

        def create_module(self, spec):
            return self.module

        def exec_module(self, module):
            pass

    class CandidateFinder:
        """Last on the path: a module the standard library does not have is the candidate's to load."""

        def find_spec(self, name, path, target=None):
            # A module of the standard library this Python lacks is never the candidate's to supply.
            if name.partition(".")[0] in getattr(sys, "stdlib_module_names", ()):
                return None
            try:
                reply = request("import", n=name)
            except CandidateBroke:
                return None
            if "x" in reply:
                return None
            module = settled({"v": reply.get("v")})
            if not isinstance(module, CandidateModule):
                return None
            module.__name__ = name
            spec = importlib.machinery.ModuleSpec(name, CandidateLoader(module), is_package=bool(reply.get("pkg")))
            if reply.get("pkg"):
                module.__path__ = []
            return spec

    sys.meta_path.append(CandidateFinder())

    tests_root = os.path.realpath(tests_dir)
    sources = {}
    for folder, dirs, files in os.walk(tests_root):
        dirs.sort()
        for name in sorted(files):
            if name.startswith("test") and name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    sources[path] = f.read()

    outcomes = {}
    load_errors = []
    suite = unittest.suite.TestSuite()
    loader = unittest.loader.TestLoader()
    for path, text in sources.items():
        name = os.path.splitext(os.path.relpath(path, tests_root))[0].replace(os.sep, ".")
        module = types.ModuleType(name)
        module.__file__ = path
        sys.modules[name] = module
        try:
            exec(compile(text, path, "exec", dont_inherit=True), module.__dict__)
            suite.addTest(loader.loadTestsFromModule(module))
        except Exception as err:
            # The code under test failed to load (a syntax error, say): this file's tests never ran.
            load_errors.append("%s: %s" % (name, type(err).__name__))

    result = JudgeResult(outcomes, load_errors, unittest.result.TestResult, unittest.suite)
    suite.run(result)

    report = {
        "nonce": nonce,
        "harness": "python-judge",
        "tests": [{"id": test_id, "outcome": outcome} for test_id, outcome in outcomes.items()],
        "errors": load_errors,
        "tampered": state["tampered"],
        "detail": state["detail"],
        "uncompared": state["uncompared"],
    }
    data = (json.dumps(report) + "\n").encode("utf-8")
    while data:
        data = data[os.write(report_fd, data):]
    os._exit(0)


def not_dumpable():
    """No core dump and no ptrace attach by anyone but root, beside the user and namespace apart (PR_SET_DUMPABLE 0)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)
    except (ImportError, OSError, AttributeError):
        pass


def share_temporary_files(scratch):
    """The tests' temporary files and folders go to the scratch folder, readable by the candidate's user.

    Set up when something first imports tempfile: importing it costs a run that never uses it 11 ms.
    """
    import importlib.machinery

    os.umask(0o022)

    def share(module):
        module.tempdir = scratch
        make_folder = module.mkdtemp

        def shared_mkdtemp(*args, **kwargs):
            folder = make_folder(*args, **kwargs)
            os.chmod(folder, 0o755)
            return folder

        module.mkdtemp = shared_mkdtemp

    class SharedTemporaryFiles:
        def find_spec(self, name, path, target=None):
            if name != "tempfile":
                return None
            sys.meta_path.remove(self)
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            load = spec.loader.exec_module

            def exec_module(module):
                load(module)
                share(module)

            spec.loader.exec_module = exec_module
            return spec

    sys.meta_path.insert(0, SharedTemporaryFiles())


def JudgeResult(outcomes, errors, base, suite_module):
    """The judge's count: each test's outcome by id, a failure or error final."""

    class Result(base):
        FINAL = ("failed", "error", "skipped")

        def _set(self, test, outcome):
            if isinstance(test, suite_module._ErrorHolder):
                errors.append(test.id())
                return
            if outcomes.get(test.id()) not in self.FINAL:
                outcomes[test.id()] = outcome

        def startTest(self, test):
            super().startTest(test)
            outcomes.setdefault(test.id(), "started")

        def addSuccess(self, test):
            super().addSuccess(test)
            if outcomes.get(test.id()) == "started":
                outcomes[test.id()] = "passed"

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            if outcomes.get(test.id()) == "started":
                outcomes[test.id()] = "passed"

        def addFailure(self, test, err):
            super().addFailure(test, err)
            self._set(test, "failed")

        def addError(self, test, err):
            super().addError(test, err)
            self._set(test, "error")

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            self._set(test, "skipped")

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            self._set(test, "failed")

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                self._set(test, "failed")

    return Result()


if __name__ == "__main__":
    main()
