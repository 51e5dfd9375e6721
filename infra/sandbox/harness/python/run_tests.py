"""The arena's harness for a Python task's hidden tests: runs them with unittest and reports per test.

Run by the worker in the scoring sandbox, never from the workspace:

    python3 -I -S -B run_tests.py <hidden tests folder> <code folder> <report fd>   (nonce on stdin)

- Nothing of the workspace is on the start-up path: -I ignores PYTHON* variables and the user's
  site-packages, -S imports no site (no .pth files, sitecustomize or usercustomize), and the code
  folder goes on sys.path after the standard library, once unittest is loaded, so it cannot shadow it.
- The score is this harness's own report, written to the report descriptor after the run: one JSON
  line with the nonce read from stdin before any code under test was loaded. A run that ends before
  it reports (an exit at import) has no report and scores 0; what the code under test prints is not read.
- The code under test runs in this process and could patch the test machinery. That cannot be
  prevented here, so it is detected: the modules and classes the run depends on are compared with
  what was loaded around every test, an audit hook (which cannot be removed) sees code objects
  swapped, tracers, garbage-collector walks, ctypes and reads of the hidden tests, and any of these
  marks the run `tampered`.
"""

import sys
import os
import sysconfig

#: The standard library's folder: code from here is the interpreter's own.
STDLIB = os.path.realpath(sysconfig.get_paths()["stdlib"]) + os.sep


def read_nonce():
    # Before anything of the workspace can run: stdin then holds nothing more to read.
    line = sys.stdin.readline().strip()
    sys.stdin.close()
    return line


def main():
    tests_dir, code_dir, report_fd = sys.argv[1], sys.argv[2], int(sys.argv[3])
    nonce = read_nonce()

    import importlib
    import json
    import linecache
    import types
    import unittest
    import unittest.case
    import unittest.loader
    import unittest.result
    import unittest.suite
    import unittest.util

    write = os.write
    exit_now = os._exit
    dumps = json.dumps
    tests_root = os.path.realpath(tests_dir)

    # The hidden tests are read now, once: from here on, opening them is the code under test reading them.
    sources = {}
    for folder, dirs, files in os.walk(tests_root):
        dirs.sort()
        for name in sorted(files):
            if name.startswith("test") and name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    sources[path] = f.read()
    for path, text in sources.items():
        # Tracebacks read their lines from here, not from the files.
        linecache.cache[path] = (len(text), None, text.splitlines(True), path)

    guard = Guard(types, tests_root)
    guard_equality(unittest.case.TestCase, guard)
    for name in list(sys.modules):
        if name == "unittest" or name.startswith("unittest.") or name in ("builtins", "json", "json.encoder"):
            guard.watch_module(sys.modules[name])
    guard.watch_module(sys.modules[__name__])
    freeze_classes(guard.classes)
    # From here on the hook sees everything, and nothing can take it away.
    sys.addaudithook(guard.audit)

    # After the standard library: a folder named unittest in the workspace is never imported. The
    # tests' own folder is not on the path: they import the code under test and the standard library.
    sys.path.append(os.path.realpath(code_dir))

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
            tests = loader.loadTestsFromModule(module)
        except BaseException as err:  # a failing import, SystemExit included: its tests never run
            load_errors.append("%s: %s" % (name, type(err).__name__))
            guard.refused_change(err, "while loading " + name)
            continue
        guard.watch_module(module)
        suite.addTest(tests)

    result = HarnessResult(outcomes, load_errors, guard)
    try:
        suite.run(result)
    except BaseException as err:
        load_errors.append("the run stopped: %s" % type(err).__name__)
    guard.check("after the last test")

    report = {
        "nonce": nonce,
        "harness": "python-unittest",
        "tests": [{"id": test_id, "outcome": outcome} for test_id, outcome in outcomes.items()],
        "errors": load_errors,
        "tampered": guard.tampered,
    }
    data = (dumps(report) + "\n").encode("utf-8")
    while data:
        data = data[write(report_fd, data):]
    # Now, before any exit handler of the code under test can run.
    exit_now(0)


#: The assertions that decide by == (or by membership, which is ==), and which of their arguments are compared.
COMPARING_ASSERTIONS = {
    "assertEqual": (0, 1),
    "assertAlmostEqual": (0, 1),
    "assertSequenceEqual": (0, 1),
    "assertListEqual": (0, 1),
    "assertTupleEqual": (0, 1),
    "assertDictEqual": (0, 1),
    "assertCountEqual": (0, 1),
    "assertIn": (0, 1),
}


def guard_equality(test_case, guard):
    """
    The best-known reward hack answers with an object that equals anything (its __eq__ says yes), so
    every assertEqual passes without a right answer. Before each comparing assertion, the values are
    compared here first: a value of the code under test's own making that calls itself equal to a
    value of an unrelated type marks the run tampered with, and the assertion fails.
    """
    def own_eq(value):
        # An __eq__ written in Python outside the standard library: the code under test's.
        eq = getattr(type(value), "__eq__", None)
        code = getattr(eq, "__code__", None)
        return code is not None and not os.path.realpath(code.co_filename).startswith(STDLIB)

    def suspicious(a, b, depth=0):
        if depth > 6:
            return None
        for x, y in ((a, b), (b, a)):
            if own_eq(x) and not isinstance(y, type(x)):
                # Equal by its own __eq__, though the other value's type (of which it may be a subclass)
                # does not find them equal: the answer is not the value, it only says it is.
                try:
                    claimed = bool(x == y)
                    honest = type(y).__eq__(y, x)
                except Exception:
                    claimed, honest = False, False
                if claimed and honest is not True:
                    return "%s.%s calls itself equal to %s %r" % (
                        type(x).__module__,
                        type(x).__qualname__,
                        type(y).__name__,
                        y if isinstance(y, (int, float, str, bool, type(None))) else type(y).__name__,
                    )
        if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
            for x, y in zip(a, b):
                found = suspicious(x, y, depth + 1)
                if found:
                    return found
        if isinstance(a, dict) and isinstance(b, dict):
            for key in a.keys() & b.keys():
                found = suspicious(a[key], b[key], depth + 1)
                if found:
                    return found
        return None

    def guarded(name, method, compared):
        def assertion(self, *args, **kwargs):
            values = [args[i] for i in compared if i < len(args)]
            if len(values) == 2:
                pairs = [values]
                if name == "assertIn" and isinstance(values[1], (list, tuple, set, frozenset)):
                    pairs = [(values[0], item) for item in values[1]]
                if name == "assertCountEqual" and all(isinstance(v, (list, tuple)) for v in values):
                    pairs = [(x, y) for x in values[0] for y in values[1]]
                for x, y in pairs:
                    found = suspicious(x, y)
                    if found:
                        guard.mark("an always-equal answer: " + found)
                        raise self.failureException("an answer that only compares equal: " + found)
            return method(self, *args, **kwargs)

        assertion.__name__ = assertion.__qualname__ = name
        assertion.__doc__ = method.__doc__
        return assertion

    for name, compared in COMPARING_ASSERTIONS.items():
        setattr(test_case, name, guarded(name, getattr(test_case, name), compared))


def freeze_classes(classes):
    """
    Makes the test machinery's classes immutable, as CPython's own built-in types are: assigning to
    TestCase.assertEqual then fails with a TypeError instead of changing it. Python has no public way to
    do this for a class written in Python, so the type's flags are set directly, where CPython keeps
    them (found, not assumed: the word equal to __flags__ in three types); without ctypes, or on a
    Python without immutable types (before 3.10), the guard's comparisons alone stand.
    """
    if sys.version_info < (3, 10):
        return
    try:
        import ctypes
    except ImportError:
        return
    immutable = 1 << 8  # Py_TPFLAGS_IMMUTABLETYPE
    word = ctypes.c_ulong
    step = ctypes.sizeof(word)
    offset = next(
        (
            at
            for at in range(0, 64 * step, step)
            if all(word.from_address(id(t) + at).value == t.__flags__ for t in (int, dict, Guard))
        ),
        None,
    )
    if offset is None:
        return
    for cls in classes:
        word.from_address(id(cls) + offset).value |= immutable


class Guard:
    """What the run depends on, as it was loaded; the first change found is why the run was tampered with."""

    #: Set by unittest itself on a test class as it runs the class's fixtures.
    FIXTURE_FLAGS = ("_classSetupFailed", "_class_cleanups", "tearDown_exceptions")
    #: Defined by the unittest package on first use (importing asyncio then, not for every run).
    LAZY_NAMES = {"unittest": ("IsolatedAsyncioTestCase", "async_case")}
    #: Audit events no solution needs: ways to reach into this process's objects or change how code runs.
    FORBIDDEN = {
        "sys.settrace": "set a tracer (sys.settrace)",
        "sys.setprofile": "set a profiler (sys.setprofile)",
        "sys._current_frames": "read every thread's frames (sys._current_frames)",
        "gc.get_objects": "walked the garbage collector's objects (gc.get_objects)",
        "gc.get_referrers": "walked the garbage collector's referrers (gc.get_referrers)",
        "gc.get_referents": "walked the garbage collector's referents (gc.get_referents)",
        "sys.addaudithook": "added an audit hook",
    }
    FUNCTION_PARTS = ("__code__", "__defaults__", "__kwdefaults__")

    def __init__(self, types, tests_root):
        self.types = types
        self.tests_root = tests_root
        self.watched = []
        self.watched_ids = set()
        self.function_ids = set()
        self.classes = []
        self.tampered = None

    def watch_module(self, module):
        self._watch(module.__name__, module.__dict__)
        for name, value in list(module.__dict__.items()):
            if isinstance(value, type) and value.__module__ == module.__name__:
                self.watch_class(value)

    def watch_class(self, cls):
        self.classes.append(cls)
        self._watch("%s.%s" % (cls.__module__, cls.__qualname__), cls.__dict__)

    def refused_change(self, err, when):
        """A TypeError from assigning to a frozen class is an attempt at tampering, even though it failed."""
        message = str(err) if isinstance(err, TypeError) else ""
        for cls in self.classes:
            if "attribute of immutable type '%s'" % cls.__name__ in message:
                return self.mark("tried to change %s.%s %s (%s)" % (cls.__module__, cls.__qualname__, when, message))

    def _watch(self, label, namespace):
        if id(namespace) in self.watched_ids:
            return
        self.watched_ids.add(id(namespace))
        functions = {}
        for name, value in namespace.items():
            target = getattr(value, "__func__", value)
            if isinstance(target, self.types.FunctionType):
                functions[name] = tuple(getattr(target, part) for part in self.FUNCTION_PARTS)
                self.function_ids.add(id(target))
        self.watched.append((label, namespace, dict(namespace), functions))

    def mark(self, why):
        if self.tampered is None:
            self.tampered = why

    def check(self, when):
        if self.tampered is not None:
            return
        for label, namespace, saved, functions in self.watched:
            for name in self.LAZY_NAMES.get(label, ()):
                if name in namespace and name not in saved and self._lazy_is_genuine(label, name, namespace[name]):
                    saved[name] = namespace[name]
            if len(namespace) != len(saved) and not self._only_fixture_flags(namespace, saved):
                added = sorted(set(namespace) - set(saved)) or sorted(set(saved) - set(namespace))
                return self.mark("%s.%s was added or removed %s" % (label, added[0] if added else "?", when))
            for name, value in saved.items():
                if name not in namespace:
                    return self.mark("%s.%s was removed %s" % (label, name, when))
                if namespace[name] is not value and name not in self.FIXTURE_FLAGS:
                    return self.mark("%s.%s was replaced %s" % (label, name, when))
            for name, parts in functions.items():
                target = getattr(namespace.get(name), "__func__", namespace.get(name))
                now = tuple(getattr(target, part, None) for part in self.FUNCTION_PARTS)
                if any(a is not b for a, b in zip(now, parts)):
                    return self.mark("the code of %s.%s was replaced %s" % (label, name, when))

    def _lazy_is_genuine(self, label, name, value):
        # What the package's own lazy import defines: the standard library's module, or its class.
        module = sys.modules.get("%s.async_case" % label)
        if module is None or not module.__spec__.origin.startswith(STDLIB):
            return False
        return value is module or getattr(module, name, None) is value

    def _only_fixture_flags(self, namespace, saved):
        return all(name in self.FIXTURE_FLAGS for name in set(namespace) ^ set(saved))

    def audit(self, event, args):
        if self.tampered is not None:
            return
        why = self.FORBIDDEN.get(event)
        if why is None and (event.startswith("ctypes.") or event == "import" and args and args[0] in ("ctypes", "_ctypes")):
            why = "loaded ctypes, which writes to memory directly"
        if why is None and event == "object.__setattr__" and len(args) >= 2 and args[1] in self.FUNCTION_PARTS:
            if id(args[0]) in self.function_ids:
                why = "replaced the %s of %s" % (args[1], getattr(args[0], "__qualname__", "a function"))
        if why is None and event in ("open", "os.listdir", "os.scandir") and args:
            path = args[0]
            if isinstance(path, (str, bytes)):
                path = os.fsdecode(path)
                if not os.path.isabs(path):
                    path = os.path.join(os.getcwd(), path)
                path = os.path.realpath(path)
                if path == self.tests_root or path.startswith(self.tests_root + os.sep):
                    why = "read the hidden tests while they ran (%s)" % os.path.relpath(path, self.tests_root)
        if why is not None:
            self.mark(why)
            # Refused as well: whatever it was for does not happen.
            raise RuntimeError("not allowed while the arena scores this run: " + why)


import unittest.result as _result  # noqa: E402  (the harness's own result class needs its base)
import unittest.suite as _suite  # noqa: E402


class HarnessResult(_result.TestResult):
    """Records each test's outcome by id and checks the guard as every test starts and stops."""

    #: Outcomes nothing later turns into a pass.
    FINAL = ("failed", "error", "skipped")

    def __init__(self, outcomes, errors, guard):
        super().__init__()
        self.outcomes = outcomes
        self.errors_seen = errors
        self.guard = guard

    def _set(self, test, outcome):
        if isinstance(test, _suite._ErrorHolder):
            # A class or module fixture failed: its tests never ran, so they are not in the report.
            self.errors_seen.append(test.id())
            return
        if self.outcomes.get(test.id()) not in self.FINAL:
            self.outcomes[test.id()] = outcome

    def startTest(self, test):
        self.guard.check("before " + test.id())
        super().startTest(test)
        self.outcomes.setdefault(test.id(), "started")

    def stopTest(self, test):
        super().stopTest(test)
        self.guard.check("during " + test.id())

    def addSuccess(self, test):
        super().addSuccess(test)
        if self.outcomes.get(test.id()) == "started":
            self.outcomes[test.id()] = "passed"

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        if self.outcomes.get(test.id()) == "started":
            self.outcomes[test.id()] = "passed"

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._set(test, "failed")

    def addError(self, test, err):
        super().addError(test, err)
        self.guard.refused_change(err[1], "during " + test.id())
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


if __name__ == "__main__":
    main()
