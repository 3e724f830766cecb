"""Any test runner, one report: run a test command and read its machine-readable results.

    from agentout.sources.testing.runners import detect, run_tests

    runner = detect(["npx", "jest", "src/"])      # Runner(name="jest", ...) or None
    done = run_tests(["go", "test", "./..."], max_tokens=2000)
    print(done.text)                              # the agent report
    done.exit_status, done.counts, done.full      # the runner's status, counts, full report

``run_tests`` adds the flags the runner needs to write its results (``detect.Runner
.prepare``) into a private directory (``tempfile.mkdtemp``: 0700, an unpredictable name,
removed afterwards), runs it with the terminal's stdin and the given directory and
environment, keeps what it prints in that directory (never on the terminal), reads the
results (``readers``) and renders the same report as the pytest plugin. A runner that
wrote no results (a compile error, a crash, a bad option) gives a report saying so, with
the last lines it printed; everything it printed is in the full report.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from agentout.errors import AgentoutError
from agentout.sources.testing.model import Counts, Failure, Run, clean
from agentout.sources.testing.runners.detect import (
    RUNNERS,
    Prepared,
    Runner,
    detect,
    project_python,
    pytest_args,
)

__all__ = [
    "RUNNERS",
    "Runner",
    "RunnerError",
    "TestRun",
    "detect",
    "project_python",
    "pytest_args",
    "run_tests",
]

_OUTPUT_CHARS = 4 << 20  # of what the runner printed, kept in the full report (the end)
_TAIL_LINES = 20
_ERROR_LINES = 5  # after the first error line: where it is (what focus failures shows)
_TICK = 1.0  # seconds between heartbeats
_COUNT_BYTES = 64 << 20  # read per tick at most to count lines; the rest on the next one


class RunnerError(AgentoutError):
    """The test command could not be started (not found, not executable)."""


@dataclass(frozen=True)
class TestRun:
    """A finished test command: the agent report and what it was made of."""

    __test__ = False  # not a pytest test class, whatever its name

    text: str  # the agent report, within the budget
    exit_status: int  # the runner's own
    runner: str  # one of RUNNERS
    argv: tuple[str, ...]  # what ran, reporter flags included
    run: Run  # counts, failures, duration
    full: str | None  # the full report's path in the spill store (None: nothing to keep)
    results: bool  # whether the runner wrote results (False: the report says it did not)
    # what the runner printed for a person (None where its stdout carried its results):
    # what an agent would have read without agentout, up to _OUTPUT_CHARS from its end
    printed: str | None = None

    @property
    def counts(self) -> Counts:
        return self.run.counts


def run_tests(
    command: Sequence[str] | Runner,
    *,
    focus: str = "failures",
    max_tokens: int | None = 5000,
    max_chars: int | None = None,
    tokenizer: str | None = None,
    format: str = "records",
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    on_tick: Callable[[float, int], None] | None = None,
    header: Mapping[str, str] | None = None,
) -> TestRun:
    """Run a test command and report on it; ``RunnerError`` when it cannot start, and
    ``ValueError`` when ``command`` runs no runner ``detect`` knows. ``on_tick(seconds,
    lines)`` is called about once a second while it runs (``agentout run``'s heartbeat);
    ``header``: fields the report's header says first (``python=`` the Python it ran)."""
    from agentout.sources.testing.report import report

    runner = command if isinstance(command, Runner) else detect(list(command))
    if runner is None:
        raise ValueError(f"not a test runner agentout knows ({', '.join(RUNNERS)})")
    where = Path(cwd if cwd is not None else os.getcwd())
    private = Path(tempfile.mkdtemp(prefix="agentout-test-"))
    try:
        prepared = runner.prepare(private)
        started = time.time()
        status, interrupted, seconds = _execute(prepared, private, where, env, on_tick)
        stdout = _read(private / "stdout")
        stderr = _read(private / "stderr")
        run = _results(runner, prepared, private, where, stdout, stderr, started)
        results = run is not None
        if run is None:
            run = _no_results(runner, status, stdout + stderr)
            if runner.name in ("cargo", "nextest"):  # it did not build: each error, located
                from agentout.sources.testing.runners.readers import compiler_diagnostics

                run = replace(run, diagnostics=compiler_diagnostics(stderr))
        run = replace(
            run,
            exit_status=status,
            interrupted=run.interrupted or interrupted,
            duration=run.duration if run.duration is not None else seconds,
        )
        printed = stderr if prepared.results is None else stdout + stderr
        text, full = report(
            run,
            focus=focus,
            max_tokens=max_tokens,
            max_chars=max_chars,
            tokenizer=tokenizer,
            format=format,
            output=printed[-_OUTPUT_CHARS:],
            header=header,
        )
    finally:
        shutil.rmtree(private, ignore_errors=True)
    shown = None if prepared.results is None else printed[-_OUTPUT_CHARS:]
    return TestRun(text, status, runner.name, prepared.argv, run, full, results, shown)


def _execute(
    prepared: Prepared,
    private: Path,
    cwd: Path,
    env: Mapping[str, str] | None,
    on_tick: Callable[[float, int], None] | None = None,
) -> tuple[int, bool, float]:
    """Run the command, its output into private files; (status, interrupted, seconds).

    Ctrl-C reaches the runner too (same process group): agentout waits for it to stop
    and reports what it wrote. ``on_tick`` gets the seconds so far and the lines the
    runner has printed, about once a second."""
    environ = dict(os.environ if env is None else env)
    environ.update(prepared.env)
    start = time.perf_counter()
    interrupted = False
    with open(private / "stdout", "xb") as out, open(private / "stderr", "xb") as err:
        try:
            child = subprocess.Popen(prepared.argv, cwd=cwd, env=environ, stdout=out, stderr=err)
        except FileNotFoundError:
            raise RunnerError(f"{prepared.argv[0]}: command not found") from None
        except OSError as exc:
            raise RunnerError(f"{prepared.argv[0]}: cannot run: {exc.strerror or exc}") from None
        printed = _Lines(private / "stdout", private / "stderr")
        while True:
            try:
                status = child.wait(timeout=None if on_tick is None else _TICK)
                break
            except subprocess.TimeoutExpired:
                if on_tick is not None:
                    on_tick(time.perf_counter() - start, printed.count())
            except KeyboardInterrupt:  # the runner got the same Ctrl-C: let it finish
                interrupted = True
    return status, interrupted, time.perf_counter() - start


class _Lines:
    """The lines written so far to some files, counted from where the last count ended."""

    def __init__(self, *paths: Path) -> None:
        self.read = dict.fromkeys(paths, 0)
        self.lines = 0

    def count(self) -> int:
        for path, done in self.read.items():
            try:
                with open(path, "rb") as handle:
                    handle.seek(done)
                    new = handle.read(_COUNT_BYTES)
            except OSError:
                continue
            self.read[path] = done + len(new)
            self.lines += new.count(b"\n")
        return self.lines


def _read(path: Path) -> str:
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - _OUTPUT_CHARS * 4))
            return handle.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _results(
    runner: Runner,
    prepared: Prepared,
    private: Path,
    cwd: Path,
    stdout: str,
    stderr: str,
    started: float,
) -> Run | None:
    """The run as the runner's results say it, None when it wrote none (or garbage)."""
    from agentout.errors import InputError
    from agentout.sources.testing.runners import readers

    name = runner.name
    try:
        if name == "pytest":
            return _pytest_results(private, cwd)
        if name in ("jest", "vitest"):
            results = prepared.results
            if results is None or not results.is_file():
                return None
            return readers.read_js(results.read_text(encoding="utf-8"), name, cwd)
        if name == "go":
            return readers.read_go(stdout, cwd, stderr)
        if name in ("cargo", "nextest"):
            return readers.read_libtest(stdout, name, cwd, stderr)
        if name == "node":
            results = prepared.results
            if results is None or not results.is_file():
                return None
            return readers.read_junit_files([results], name, cwd)
        if name == "gradle":
            return readers.read_junit_files(sorted(private.glob("reports/**/*.xml")), name, cwd)
        if name == "maven":
            return readers.read_junit_files(_surefire_reports(cwd, private, started), name, cwd)
    except (ValueError, InputError, OSError, UnicodeDecodeError):
        return None
    return None


def _pytest_results(private: Path, cwd: Path) -> Run | None:
    from agentout.sources.testing.junit import read_junit
    from agentout.sources.testing.model import run_from_json

    ours = private / "run.json"
    xml = private / "junit.xml"
    if ours.is_file():
        try:
            return run_from_json(ours.read_text(encoding="utf-8"))
        except (ValueError, KeyError, TypeError):  # another agentout's plugin wrote it
            if not xml.is_file():
                raise ValueError("the plugin's results cannot be read") from None
    if xml.is_file():  # a pytest without agentout's plugin (the project's own Python)
        return replace(read_junit([str(xml)], str(cwd)), source="pytest")
    return None


_SKIP_DIRS = {".git", "node_modules", ".hg", ".venv", "venv", "__pycache__", "src"}


def _surefire_reports(cwd: Path, private: Path, started: float) -> list[Path]:
    """Surefire's and Failsafe's XML reports written by this run (every module's
    ``target/*-reports``), copied into the private directory before reading."""
    found: list[Path] = []
    for folder, dirs, _ in os.walk(cwd):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        here = Path(folder)
        if here.name not in ("surefire-reports", "failsafe-reports"):
            continue
        dirs[:] = []
        for report in sorted(here.glob("TEST-*.xml")):
            try:
                fresh = report.stat().st_mtime >= started - 1
            except OSError:
                continue
            if fresh:
                copy = private / "maven" / f"{len(found):05}-{report.name}"
                copy.parent.mkdir(mode=0o700, exist_ok=True)
                shutil.copyfile(report, copy)
                found.append(copy)
    return found


def _no_results(runner: Runner, status: int, printed: str) -> Run:
    """The run of a runner that wrote no results: one error saying so, its first error
    line (or its last line) as the message, and as output the lines from that first error
    on (or the last lines it printed)."""
    lines = [line.rstrip() for line in printed.splitlines() if line.strip()]
    first = next((i for i, line in enumerate(lines) if "error" in line.lower()), None)
    if first is not None:
        message, tail = lines[first], lines[first + 1 : first + 1 + _ERROR_LINES]
    else:
        message, tail = (lines or [f"exit status {status}"])[-1], lines[-_TAIL_LINES:]
    failure = Failure(
        file=runner.name,
        test="",
        error_type="no results",
        message=clean(message.strip(), 400),
        kind="error",
        when="run",
        output="\n".join(clean(line, 300) for line in tail),
        details=clean(printed, 1 << 20),
    )
    return Run(Counts(errors=1), (failure,), 0, source=runner.name)
