"""JUnit/xUnit XML from any runner, read into the same ``Run`` the pytest plugin builds.

Known shapes: pytest ``--junitxml``, Maven Surefire (JUnit 4/5, AssertJ), go-junit-report,
jest-junit and cargo-nextest. Parsing goes through defusedxml: entity expansion (the
billion laughs) and external entities are refused, and any bad input raises
``InputError`` naming the file (and line and column when the XML parser knows them).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from xml.etree.ElementTree import Element, ParseError

from agentout.errors import InputError
from agentout.sources.testing.assertions import expected_got
from agentout.sources.testing.frames import Frame, is_library_text, parse_frames
from agentout.sources.testing.model import Counts, Failure, Run, clean

__all__ = ["failure_from_text", "read_junit", "read_junit_bytes"]

_MESSAGE_CHARS = 4000
_DETAILS_CHARS = 1 << 20
_TYPE = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\Z")
_TYPED_MESSAGE = re.compile(
    r"(?P<type>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*): ?(?P<msg>.*)\Z", re.S
)
_LOCATED = re.compile(r"^\s*[\w./\\-]+\.\w+:\d+(?::\d+)?: ")  # "cart_test.go:14: msg"
_PYTEST_PHASE = re.compile(r'^failed on (?P<when>setup|teardown) with "(?P<msg>.*)"\Z', re.S)
_PYTEST_E_LINE = re.compile(r"^E   (?P<line>\S.*)$", re.M)
_TESTIFY_ERROR = re.compile(r"^[ \t]+Error:\s+(?P<msg>\S.*)$", re.M)
# Lines of a diff: jest's "- Expected"/"+ Received" blocks, testify's, unittest's.
_DIFF_LINE = re.compile(r"^[ \t]*(?:[-+?] |[-+]\S|@@ ).*$", re.M)
# jest's legend over its diff ("- Expected  - 1", "+ Received  + 1"): counts, not a change
_DIFF_LEGEND = re.compile(r"\s*[-+] (?:Expected|Received)\s+[-+] \d+\s*\Z")
_DIFF_LINES = 24
# Rust's libtest prints these around every test's own output (nextest keeps them).
_HARNESS = re.compile(
    r"\s*(?:running \d+ tests?|test \S+ \.\.\. \w+|failures:|\S+::\S+|test result: .*"
    r"|note: run with `RUST_BACKTRACE=1`.*)\Z"
)
_GENERIC_MESSAGES = frozenset({"", "failed", "failure", "error", "collection failure"})
_SUBTESTS_FAILED = re.compile(r"contains \d+ failed subtests?\Z")  # pytest's, on the test
_UNITTEST_SELF = re.compile(r"self = <[\w.]+ testMethod=\w+>")  # pytest's trace of one
_TEARDOWN = re.compile(r'failed on teardown with "')
# The last line of a pytest traceback: where the error was raised, and its type.
_PYTEST_RAISED = re.compile(r"^[\w./\\-]+\.py:\d+: (?P<type>[A-Za-z_][\w.]*)$", re.M)


def read_junit(paths: Sequence[str], cwd: str | None = None) -> Run:
    """One ``Run`` from every file in ``paths``; ``InputError`` for the first bad one.
    Absolute paths are shown relative to their common root (``paths.relative_paths``),
    ``cwd`` (the working directory by default) when they are all under it."""
    cases: list[_Case] = []
    duration: float | None = None
    for path in paths:
        try:
            data = Path(path).read_bytes()
        except OSError as exc:
            from agentout.read.text import unreadable

            raise unreadable(exc, path) from None
        more, seconds = _parse(data, path)
        cases.extend(more)
        if seconds is not None:
            duration = seconds + (duration or 0.0)
    return _run(cases, duration, cwd)


def read_junit_bytes(data: bytes, name: str = "<junit>") -> Run:
    cases, seconds = _parse(data, name)
    return _run(cases, seconds)


@dataclass(frozen=True)
class _Case:
    outcome: str  # passed, failed, error, skipped, xfailed, subtest_failed
    unit: str  # what files= counts: the test file, or the class / package / suite
    failure: Failure | None
    file: str = ""  # the file a failed test counts in (its P line), listed or not


def _load(data: bytes, name: str) -> Element:
    import defusedxml.ElementTree as SafeTree
    from defusedxml import DefusedXmlException

    if not data.strip():
        raise InputError("empty file, expected JUnit XML", path=name)
    try:
        root: Element = SafeTree.fromstring(data)
    except ParseError as exc:
        line, column = getattr(exc, "position", (None, None))
        message = str(exc).split(":", 1)[0]
        raise InputError(
            f"not well-formed XML ({message})",
            path=name,
            line=line,
            column=None if column is None else column + 1,
        ) from None
    except DefusedXmlException as exc:
        raise InputError(
            f"refusing XML that declares entities or loads external ones ({type(exc).__name__})",
            path=name,
        ) from None
    return root


def _parse(data: bytes, name: str) -> tuple[list[_Case], float | None]:
    root = _load(data, name)
    if root.tag not in ("testsuites", "testsuite"):
        raise InputError(
            f"not JUnit XML: the root element is <{root.tag}>, "
            "expected <testsuites> or <testsuite>",
            path=name,
        )
    suites = [root] if root.tag == "testsuite" else [root, *root.iter("testsuite")]
    pairs = [(case, suite) for suite in suites for case in suite.findall("testcase")]
    if root.tag == "testsuites" and root.find("testcase") is not None:
        # node's test runner: tests at the top, a test's subtests in a suite of its name
        pairs = [(_nested(case, suite), suite) if suite is not root else (case, suite)
                 for case, suite in pairs]  # fmt: skip
    traces = {id(p): parse_frames(_text(p)) for case, _ in pairs for p in _problems(case)}
    # Python files named in any trace: they map pytest's dotted classnames to paths.
    python = frozenset(f.path for found in traces.values() for f in found if f.path.endswith(".py"))
    # pytest writes a test that failed and then erred in teardown as two test cases
    failing = {_key(case) for case, _ in pairs if any(p.tag == "failure" for p in _problems(case))}
    cases = [
        c
        for case, suite in pairs
        for c in _cases(case, suite, traces, python, _key(case) in failing)
    ]
    return cases, _seconds(root, suites)


def _key(case: Element) -> tuple[str, str]:
    return case.get("classname", ""), case.get("name", "")


def _nested(case: Element, suite: Element) -> Element:
    """A subtest named with its test: ``formats cents > 5 cents``."""
    named = Element(case.tag, dict(case.attrib))
    named.set("name", f"{suite.get('name', '')} > {case.get('name', '')}")
    named.extend(list(case))
    named.text = case.text
    return named


def _problems(case: Element) -> list[Element]:
    """A test case's failures and errors: several when pytest folds subtests into one."""
    return [child for child in case if child.tag in ("failure", "error")]


def _seconds(root: Element, suites: Iterable[Element]) -> float | None:
    """The run's time: the root's ``time``, else its suites' added up; None if none says."""

    def number(element: Element) -> float | None:
        try:
            return float(element.get("time", ""))
        except ValueError:
            return None

    total = number(root)
    if total is None:
        times = [t for t in (number(s) for s in suites if s is not root) if t is not None]
        total = sum(times) if times else None
    return total


def _text(element: Element | None) -> str:
    return "" if element is None else (element.text or "")


def _cases(
    case: Element,
    suite: Element,
    traces: Mapping[int, Sequence[Frame]],
    python: frozenset[str],
    failed_elsewhere: bool = False,
) -> list[_Case]:
    name = case.get("name", "")
    classname = case.get("classname", "") or ""
    problems = _problems(case)
    frames = traces[id(problems[0])] if problems else []
    file, test = _where(case, suite, classname, name, frames, python)
    unit = file if file.endswith(".py") else classname or suite.get("name", "") or file
    if classname == name and suite.get("name"):  # jest-junit: the classname is the title
        unit = suite.get("name", "")
    if not problems:
        skipped = case.find("skipped")
        outcome = "passed" if skipped is None else "skipped"
        if skipped is not None and skipped.get("type") == "pytest.xfail":
            outcome = "xfailed"  # pytest writes an expected failure as a skip of this type
        return [_Case(outcome, unit, None)]
    own, listed = _counted(problems, failed_elsewhere)
    out = [] if own is None else [_Case(own, unit, None, file)]
    for number, (problem, outcome) in enumerate(listed, start=1):
        failure = _failure(case, problem, traces[id(problem)], file, test, classname)
        if outcome == "subtest_failed":
            failure = replace(failure, subtest=f"#{number}")
        out.append(_Case(outcome, unit, failure))
    return out


def _counted(
    problems: Sequence[Element], failed_elsewhere: bool
) -> tuple[str | None, list[tuple[Element, str]]]:
    """How pytest counts one test case's problems (and so the report, as the plugin does):
    the test's own outcome when no problem of it is listed (else None), and each problem
    listed with its outcome.

    Several failures in one test case are subtests. pytest's "contains N failed subtests"
    fails the test itself: counted, not listed again; a test that failed on its own after
    its subtests has that failure last; a unittest test whose subTests failed stays passed.
    A test that passed and then erred in teardown is counted passed and in error.
    """
    summary = [p for p in problems if _SUBTESTS_FAILED.match(p.get("message") or "")]
    failures = [p for p in problems if p.tag == "failure" and p not in summary]
    errors = [(p, "error") for p in problems if p.tag == "error" and p not in summary]
    if summary or len(failures) > 1:
        if summary or _UNITTEST_SELF.match(_text(failures[0])):
            subtests, own = failures, ("failed" if summary else "passed")
        else:
            subtests, own = failures[:-1], None
        listed = [(p, "subtest_failed") for p in subtests]
        if own is None:
            listed.append((failures[-1], "failed"))
        return own, listed + errors
    torn_down = all(_TEARDOWN.match(p.get("message") or "") for p, _ in errors)
    own = "passed" if not failures and not failed_elsewhere and torn_down else None
    return own, [(p, "failed") for p in failures] + errors


def _failure(
    case: Element, problem: Element, frames: Sequence[Frame], file: str, test: str, classname: str
) -> Failure:
    text = _text(problem)
    return failure_from_text(
        text,
        file=file,
        test=test,
        classname=classname,
        error_type=problem.get("type") or "",
        message=problem.get("message") or "",
        kind="error" if problem.tag == "error" else "failed",
        output=_output(case, text),
        line=_int(case.get("line")),
        frames=frames,
        tag=problem.tag,
    )


def failure_from_text(
    text: str,
    *,
    file: str,
    test: str,
    classname: str = "",
    error_type: str = "",
    message: str = "",
    kind: str = "failed",
    output: str = "",
    line: int | None = None,
    frames: Sequence[Frame] | None = None,
    tag: str = "failure",
) -> Failure:
    """A ``Failure`` from what a runner wrote about it: its trace or output ``text``, and
    the type and message when the runner gives them apart. The failing line is the
    innermost frame in the test file, the origin the innermost frame of project code
    outside it, expected vs got as the runner words them."""
    frames = parse_frames(text) if frames is None else frames
    error_type, message, when = _message(error_type, message, text, tag)
    in_test = [f for f in frames if _in_test(f, file, classname) and not is_library_text(f)]
    line = in_test[-1].line if in_test else line
    origin = None
    for frame in reversed(frames):
        if not is_library_text(frame):
            if frame not in in_test:
                origin = f"{frame.path}:{frame.line}"
            break
    pair = expected_got(message) or expected_got(text)
    changed = [d.rstrip() for d in _DIFF_LINE.findall(text) if not _DIFF_LEGEND.match(d)]
    diff = "\n".join(changed[:_DIFF_LINES])
    details = "\n".join(
        part for part in (message if message not in text else "", text, output) if part
    )
    return Failure(
        file=clean(file, 300),
        test=clean(test, 300),
        error_type=clean(error_type, 200),
        message=clean(message, _MESSAGE_CHARS),
        kind=kind,
        when=when,
        line=line,
        origin=clean(origin, 300) if origin else None,
        expected=None if pair is None else clean(pair[0], 400),
        got=None if pair is None else clean(pair[1], 400),
        diff=diff,
        output=clean(output, _DETAILS_CHARS),
        details=clean(details, _DETAILS_CHARS),
    )


def _output(case: Element, text: str) -> str:
    """system-out and system-err, less test-harness chatter and lines of the failure."""
    seen = {line.strip() for line in text.split("\n")}
    parts = []
    for tag in ("system-out", "system-err"):
        lines = [
            line
            for line in _text(case.find(tag)).strip().split("\n")
            if line.strip() and line.strip() not in seen and not _HARNESS.match(line)
        ]
        if lines:
            parts.append(f"[{tag}]\n" + "\n".join(lines))
    return "\n".join(parts)


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _where(
    case: Element,
    suite: Element,
    classname: str,
    name: str,
    frames: Sequence[Frame],
    python: frozenset[str],
) -> tuple[str, str]:
    """(file, test within it): the ``file`` attribute, else the Python file a dotted
    classname names (pytest: ``tests.test_cart.TestCart`` -> ``tests/test_cart.py`` and
    ``TestCart::name``), else the classname itself (a JVM class, a Go package)."""
    file = case.get("file") or ""
    if file:
        return file, name
    dotted = classname or (name if "." in name and "/" not in name else "")
    if dotted:
        module, rest = _python_module(dotted, python)
        if module:
            if not classname:  # a module that did not collect: no test in it
                return module, ""
            return module, f"{rest.replace('.', '::')}::{name}" if rest else name
    tests = [f.path for f in frames if _test_like(f.path) and not is_library_text(f)]
    if tests:  # jest, go: the test file is in the trace
        path = tests[-1]
        if "/" not in path and "/" in classname:  # go: cart_test.go in package .../cart
            path = f"{classname}/{path}"
        return path, name
    if classname == name and suite.get("name"):  # jest-junit: classname repeats the title
        return suite.get("name", ""), name
    return classname or suite.get("name", "") or "?", name


def _test_like(path: str) -> bool:
    stem = Path(path.replace("\\", "/")).stem.lower()
    if stem == "conftest":
        return False
    return stem.startswith("test") or stem.endswith(("test", "tests", ".spec", "_spec"))


def _python_module(dotted: str, python: frozenset[str]) -> tuple[str, str]:
    """The longest leading part of ``dotted`` that is a Python file (named in a trace of
    this document, or on disk under the working directory), and the rest (class names).

    In a Python document where neither knows it, Python's naming decides: the parts
    before the first CamelCase one are the module (``tests.test_x.TestY``)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        path = "/".join(parts[:i]) + ".py"
        if any(p == path or p.endswith("/" + path) for p in python) or _is_file(path):
            return path, ".".join(parts[i:])
    if python and all(part.isidentifier() for part in parts):
        cut = next((i for i, part in enumerate(parts) if part[:1].isupper()), len(parts))
        if cut:
            return "/".join(parts[:cut]) + ".py", ".".join(parts[cut:])
    return "", ""


@functools.lru_cache(maxsize=4096)
def _is_file(path: str) -> bool:
    try:
        return Path(path).is_file()
    except OSError:
        return False


# node's test runner: type="testCodeFailure" says where it failed, the cause says what
_NODE_CAUSE = re.compile(r"cause: (?P<type>[A-Za-z_$][\w$.]*)(?: \[\w+\])?: (?P<msg>[^\n]*)")
_NODE_STACK = re.compile(r"\s+at \S")


def _message(attr_type: str, given: str, text: str, tag: str = "failure") -> tuple[str, str, str]:
    """(error type, message, phase) from the runner's type and message or, failing them,
    the text."""
    attr_type, given = attr_type.strip(), given.strip()
    message, when = given, "call"
    phase = _PYTEST_PHASE.match(message)
    if phase:
        when, message = phase.group("when"), phase.group("msg")
    if message == "collection failure":
        when = "collect"
    if message.lower() in _GENERIC_MESSAGES:
        message = _message_from_text(text) or message
    if attr_type.endswith("Failure") and attr_type[:1].islower():  # node: testCodeFailure
        cause = _NODE_CAUSE.search(text)
        if cause:
            return cause.group("type"), _node_message(text, cause) or message, when
        attr_type = ""
    if "panicked at" in message:  # Rust: the assertion is on the line after the location
        after = text.split(message.split(" panicked at ", 1)[-1], 1)[-1].lstrip(":\n ")
        return "panic", after.split("\n", 1)[0] or message, when
    typed = _TYPED_MESSAGE.match(message.split("\n", 1)[0])
    if _TYPE.match(attr_type):
        error_type = attr_type
        if typed and typed.group("type") == attr_type:
            message = typed.group("msg")
    elif typed:
        error_type, message = typed.group("type"), typed.group("msg")
    elif given and _TYPE.match(given):  # go-junit-report says message="Failed"
        error_type = given
    elif raised := _PYTEST_RAISED.findall(text):  # pytest 9 writes no type attribute
        error_type = raised[-1]
    else:
        error_type = tag
    return error_type, message, when


def _node_message(text: str, cause: re.Match[str]) -> str:
    """The message of node's cause as node printed it, its lines kept (an assertion's
    diff): the attribute holds the same with every line break taken out."""
    start = text.rfind("\n", 0, cause.start()) + 1
    indent = cause.start() - start
    lines = [cause.group("msg")]
    properties = re.compile(" " * (indent + 2) + r"\w+: \S")  # the error's own, after
    for line in text[cause.end() :].split("\n")[1:]:
        if line.strip() and not line.startswith(" " * indent):
            break
        if _NODE_STACK.match(line) or properties.match(line):
            break
        lines.append(line[indent:].rstrip())
    return "\n".join(lines).strip()


def _message_from_text(text: str) -> str:
    """The line that says what went wrong: pytest's ``E   Type: msg``, testify's
    ``Error: msg``, else the first line without its ``file:line:`` prefix."""
    e_lines = _PYTEST_E_LINE.findall(text)
    if e_lines:
        return str(e_lines[0]).strip()
    testify = _TESTIFY_ERROR.search(text)
    if testify:
        return testify.group("msg").strip()
    for line in text.strip().split("\n"):
        stripped = _LOCATED.sub("", line).strip()
        if stripped:
            return stripped
    return ""


def _in_test(frame: Frame, file: str, classname: str) -> bool:
    """Whether a frame is in the test's own file (or, for the JVM, its class)."""
    if classname and frame.func.startswith(classname + "."):
        return True
    path = frame.path.replace("\\", "/")
    wanted = file.replace("\\", "/")
    if wanted and ("/" in wanted or "." in Path(wanted).name):
        return path == wanted or path.endswith("/" + wanted) or wanted.endswith("/" + path)
    return _test_like(path)


def _run(cases: Sequence[_Case], seconds: float | None, cwd: str | None = None) -> Run:
    key = {"passed": "passed", "failed": "failed", "error": "errors", "skipped": "skipped",
           "xfailed": "xfailed", "subtest_failed": "subtests_failed"}  # fmt: skip
    counts = dict.fromkeys(key.values(), 0)
    failures: list[Failure] = []
    by_file: dict[str, dict[str, int]] = {}  # each file's failed, subtests_failed, errors
    failing = ("failed", "subtests_failed", "errors")
    for index, case in enumerate(cases):
        counts[key[case.outcome]] += 1
        file = case.failure.file if case.failure is not None else case.file
        if case.outcome in ("failed", "error", "subtest_failed"):
            mine = by_file.setdefault(file, dict.fromkeys(failing, 0))
            mine[key[case.outcome]] += 1
        if case.failure is not None:
            failures.append(replace(case.failure, position=index))
    files = {case.unit for case in cases}
    from agentout.sources.testing.paths import relative_paths

    ordered = sorted(failures, key=lambda f: (f.file, f.position))
    run = Run(
        counts=Counts(**counts),
        failures=tuple(ordered),
        files=len(files),
        duration=seconds,
        source="junit",
        file_counts={file: Counts(**mine) for file, mine in by_file.items()},
    )
    return relative_paths(run, cwd)
