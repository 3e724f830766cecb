"""Machine-readable results of each runner, read into the ``Run`` every report is made of.

- jest ``--json`` and vitest's ``json`` reporter (one shape): files, tests, statuses,
  failure messages with their traces;
- ``go test -json``: the event stream, a test's own output lines, subtests by ``/``;
- libtest's JSON (``cargo test``, ``cargo nextest run --message-format libtest-json``);
- JUnit XML for the rest (node's ``junit`` reporter, Surefire, Gradle, pytest without
  agentout's plugin), through ``junit.read_junit``.

Every reader raises ``ValueError`` for text that is not what the runner writes, so the
caller can say the runner wrote no results rather than show a wrong report.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from agentout.sources.testing.junit import failure_from_text
from agentout.sources.testing.model import Counts, Diagnostic, Failure, Run, clean
from agentout.sources.testing.paths import relative_paths
from agentout.sources.testing.sites import add_text_sites

__all__ = ["compiler_diagnostics", "read_go", "read_js", "read_junit_files", "read_libtest"]

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_DETAILS_CHARS = 1 << 20


def _counts(counter: Counter[str]) -> Counts:
    return Counts(**{k: v for k, v in counter.items() if v})


# -- jest and vitest --------------------------------------------------------------------

_JS_SKIPPED = {"pending", "skipped", "todo", "disabled"}


def read_js(text: str, source: str, cwd: Path) -> Run:
    """jest's ``--json`` output (vitest's ``json`` reporter writes the same shape)."""
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("testResults"), list):
        raise ValueError("no testResults")
    counts: Counter[str] = Counter()
    failures: list[Failure] = []
    for suite in data["testResults"]:
        file = str(suite.get("name", ""))
        tests = suite.get("assertionResults") or []
        for test in tests:
            status = test.get("status")
            if status == "passed":
                counts["passed"] += 1
            elif status in _JS_SKIPPED:
                counts["skipped"] += 1
            elif status == "failed":
                counts["failed"] += 1
                failures.append(_js_failure(file, test, len(failures)))
        message = _ANSI.sub("", str(suite.get("message") or suite.get("failureMessage") or ""))
        if (
            suite.get("status") == "failed"
            and message.strip()
            and not any(t.get("status") == "failed" for t in tests)
        ):  # the file did not run (syntax error, import error)
            counts["errors"] += 1
            failure = failure_from_text(message, file=file, test="", kind="error")
            failures.append(_with(failure, when="collect", position=len(failures)))
    start, end = data.get("startTime"), _end(data)
    duration = (end - start) / 1000 if isinstance(start, (int, float)) and end else None
    run = Run(_counts(counts), tuple(failures), len(data["testResults"]), duration, source=source)
    return add_text_sites(relative_paths(run, cwd), cwd)


def _end(data: dict[str, Any]) -> float | None:
    ends = [s.get("endTime") for s in data["testResults"]]
    numbers = [e for e in ends if isinstance(e, (int, float))]
    return max(numbers) if numbers else None


def _js_failure(file: str, test: dict[str, Any], position: int) -> Failure:
    messages = [_ANSI.sub("", str(m)) for m in test.get("failureMessages") or []]
    text = "\n".join(messages)
    location = test.get("location") or {}
    name = str(test.get("fullName") or test.get("title") or "")
    failure = failure_from_text(text, file=file, test=name, line=location.get("line"))
    if failure.message.startswith("expect(") and failure.error_type == "Error":
        failure = _with(failure, error_type="AssertionError")  # jest's failed expect()
    return _with(failure, position=position)


def _with(failure: Failure, **changes: Any) -> Failure:
    from dataclasses import replace

    return replace(failure, **changes)


# -- go test -json ----------------------------------------------------------------------

_GO_FILE_LINE = re.compile(r"^\s*(?P<file>[\w.-]+_test\.go):(?P<line>\d+):", re.M)
_GO_STACK_TEST = re.compile(r"^\s+(?P<path>\S+_test\.go):(?P<line>\d+)", re.M)
_GO_FRAMING = re.compile(r"^\s*(?:=== (?:RUN|PAUSE|CONT|NAME)|--- (?:FAIL|PASS|SKIP):)\s")


def _events(text: str) -> Iterator[dict[str, Any]]:
    seen = False
    for line in text.splitlines():
        if not line.startswith("{"):
            continue  # go prints build errors and its own notes as plain text
        event = json.loads(line)
        if not isinstance(event, dict) or "Action" not in event:
            raise ValueError("not a go test -json event")
        seen = True
        yield event
    if not seen:
        raise ValueError("no go test -json events")


def _go_module(cwd: Path) -> tuple[str, Path] | None:
    """The module path in the nearest go.mod at or above ``cwd``, and its directory."""
    for folder in (cwd, *cwd.parents):
        mod = folder / "go.mod"
        try:
            text = mod.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        match = re.search(r"^module\s+(\S+)", text, re.M)
        return (match.group(1), folder) if match else None
    return None


def _go_dir(package: str, module: tuple[str, Path] | None, cwd: Path) -> str:
    """A package's folder relative to ``cwd`` when it is in this module, else its path."""
    if module is not None:
        path, folder = module
        if package == path or package.startswith(path + "/"):
            where = folder / package[len(path) + 1 :]
            try:
                return where.relative_to(cwd).as_posix()
            except ValueError:
                return where.as_posix()
    return package


def read_go(text: str, cwd: Path, stderr: str = "") -> Run:
    """``go test -json``: tests and subtests (``TestX/case``) with their outcomes; a
    package that failed with no failing test (a build error, a panic before any test, a
    bad TestMain) is one error."""
    module = _go_module(cwd)
    outcome: dict[tuple[str, str], str] = {}
    output: dict[tuple[str, str], list[str]] = {}
    elapsed = 0.0
    for event in _events(text):
        key = (str(event.get("Package", "")), str(event.get("Test", "")))
        action = event["Action"]
        if action == "output":
            output.setdefault(key, []).append(str(event.get("Output", "")))
        elif action in ("pass", "fail", "skip"):
            outcome[key] = action
            if not key[1] and isinstance(event.get("Elapsed"), (int, float)):
                elapsed += float(event["Elapsed"])
    counts: Counter[str] = Counter()
    failures: list[Failure] = []
    parents: list[tuple[str, str]] = []
    failed_packages = {pkg for (pkg, test), action in outcome.items() if action == "fail" and test}
    for index, ((package, test), action) in enumerate(outcome.items()):
        if not test:
            if action == "fail" and package not in failed_packages:
                counts["errors"] += 1
                lines = [*output.get((package, ""), []), stderr]
                failure = failure_from_text(
                    "".join(lines), file=_go_dir(package, module, cwd), test="", kind="error",
                    error_type="build" if "[build failed]" in "".join(lines) else "",
                )  # fmt: skip
                failures.append(_with(failure, when="collect", position=index))
            continue
        sub = "/" in test
        word = {"pass": "passed", "fail": "failed", "skip": "skipped"}[action]
        counts[f"subtests_{word}" if sub and word != "skipped" else word] += 1
        if action != "fail":
            continue
        own = [line for line in output.get((package, test), []) if not _GO_FRAMING.match(line)]
        has_failing_subtests = any(
            t.startswith(test + "/") and a == "fail"
            for (p, t), a in outcome.items()
            if p == package
        )
        if has_failing_subtests and not "".join(own).strip():
            parents.append((package, test))  # failed by its subtests, which are listed:
            continue  # counted, not repeated
        failures.append(_go_failure(package, test, "".join(own), module, cwd, index))
    packages = {package for package, _ in outcome}
    run = Run(
        _counts(counts), tuple(failures), len(packages), elapsed or None, source="go",
        file_counts=_go_file_counts(failures, parents),
    )  # fmt: skip
    return add_text_sites(relative_paths(run, cwd), cwd)


def _go_file_counts(failures: list[Failure], parents: list[tuple[str, str]]) -> dict[str, Counts]:
    """Each file's failed tests, failed subtests (``TestX/case``) and errors, a test failed
    by its subtests counted in the file of its first one, as the status line counts them."""
    counted: dict[str, Counter[str]] = {}
    for failure in failures:
        kind = "errors" if failure.kind == "error" else "failed"
        if kind == "failed" and "/" in failure.test:
            kind = "subtests_failed"
        counted.setdefault(failure.file, Counter())[kind] += 1
    for _, test in parents:
        first = next((f for f in failures if f.test.startswith(test + "/")), None)
        if first is not None:
            counted[first.file]["failed"] += 1
    return {file: _counts(found) for file, found in counted.items()}


def _go_failure(
    package: str, test: str, text: str, module: tuple[str, Path] | None, cwd: Path, index: int
) -> Failure:
    folder = _go_dir(package, module, cwd)
    located = _GO_FILE_LINE.search(text)
    file = f"{folder}/{located.group('file')}" if located else folder
    if located is None:  # a panic: the test file is in the goroutine's stack
        frame = _GO_STACK_TEST.search(text)
        if frame is not None:
            file = frame.group("path")
    panic = "panic: " in text
    failure = failure_from_text(
        text,
        file=file,
        test=test,
        error_type="panic" if panic else "Failed",
        message=_go_panic(text) if panic else "",
        line=int(located.group("line")) if located else None,
    )
    return _with(failure, position=index)


def _go_panic(text: str) -> str:
    match = re.search(r"^panic: (.*)$", text, re.M)
    return match.group(1).strip() if match else ""


# -- libtest JSON (cargo test, cargo nextest) -------------------------------------------

_RUST_FRAME = re.compile(
    r"^\s*\d+: (?P<func>\S+)\n\s+at (?P<path>[^\n]+?):(?P<line>\d+):(?P<column>\d+)$", re.M
)
_RUST_PANIC = re.compile(r"panicked at (?P<path>[^\s:]+):(?P<line>\d+):(?P<column>\d+)")


def read_libtest(text: str, source: str, cwd: Path, stderr: str = "") -> Run:
    """libtest's JSON lines: ``suite`` events around each test binary's ``test`` events
    (nextest names a test ``binary$path::to::test``); the compiler's warnings in
    ``stderr`` (cargo builds the tests first) are kept as the run's diagnostics."""
    counts: Counter[str] = Counter()
    failures: list[Failure] = []
    suites = 0
    seconds = 0.0
    seen = False
    for line in text.splitlines():
        if not line.lstrip().startswith("{"):
            continue
        event = json.loads(line)
        if not isinstance(event, dict) or event.get("type") not in ("suite", "test", "bench"):
            raise ValueError("not libtest JSON")
        seen = True
        if event["type"] == "suite":
            if event.get("event") == "started":
                suites += 1
            elif isinstance(event.get("exec_time"), (int, float)):
                seconds += float(event["exec_time"])
            continue
        status = event.get("event")
        if status == "ok":
            counts["passed"] += 1
        elif status == "ignored":
            counts["skipped"] += 1
        elif status in ("failed", "timeout"):
            counts["failed"] += 1
            failures.append(_rust_failure(event, suites, len(failures)))
    if not seen:
        raise ValueError("no libtest JSON events")
    diagnostics = compiler_diagnostics(stderr)
    counts["warnings"] += sum(1 for d in diagnostics if d.severity == "warning")
    run = Run(
        _counts(counts), tuple(failures), suites, seconds or None, source=source,
        diagnostics=diagnostics,
    )  # fmt: skip
    return add_text_sites(relative_paths(run, cwd), cwd)


def compiler_diagnostics(stderr: str) -> tuple[Diagnostic, ...]:
    """rustc's warnings and errors in what cargo printed while it built the tests."""
    from agentout.reducers.lint import compiler_messages

    printed = compiler_messages(_ANSI.sub("", stderr))
    return tuple(Diagnostic(at, message, severity) for at, severity, message in printed)


def _rust_failure(event: dict[str, Any], suite: int, position: int) -> Failure:
    name = str(event.get("name", ""))
    binary, _, test = name.rpartition("$")
    text = str(event.get("stdout") or "") + str(event.get("stderr") or "")
    if event.get("event") == "timeout":
        text = text or "the test ran past its time limit"
    # The test's own frame (RUST_BACKTRACE set) says its file and line; else the panic's.
    leaf = test.rsplit("::", 1)[-1]
    own = next(
        (m for m in _RUST_FRAME.finditer(text) if m.group("func").endswith("::" + test)
         or m.group("func").endswith("::" + leaf)),
        None,
    )  # fmt: skip
    panic = _RUST_PANIC.search(text)
    column = None
    if own is not None:
        file, line = own.group("path").removeprefix("./"), int(own.group("line"))
        column = int(own.group("column"))
    elif panic is not None:
        file, line = panic.group("path"), int(panic.group("line"))
        column = int(panic.group("column"))
    else:
        file, line = binary or f"suite {suite}", None
    failure = failure_from_text(text, file=file, test=test or name, line=line, frames=[])
    origin = None
    if own is not None and panic is not None:
        at, at_line = panic.group("path").removeprefix("./"), int(panic.group("line"))
        same = at_line == line and (at == file or file.endswith("/" + at))
        origin = None if same else f"{at}:{at_line}:{panic.group('column')}"
    # Tests run in parallel: source order, not the order they ended in, is reading order.
    order = line if line is not None else position
    details = clean(text, _DETAILS_CHARS)
    return _with(failure, origin=origin, position=order, details=details, column=column)


def read_junit_files(paths: Iterable[Path], source: str, cwd: Path) -> Run:
    """JUnit XML files as one run, named after the runner that wrote them."""
    from dataclasses import replace

    from agentout.sources.testing.junit import read_junit

    files = sorted(str(p) for p in paths)
    if not files:
        raise ValueError("no JUnit XML files")
    return replace(add_text_sites(read_junit(files, str(cwd)), cwd), source=source)
