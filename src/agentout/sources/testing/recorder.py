"""The plugin's stateful object: records a pytest run and writes the agent report.

Registered by ``plugin.pytest_configure`` only when the report is on. In the process
that reports (a plain run, or xdist's controller) a ``Recorder`` silences pytest's
terminal reporter, so the agent report is all that is printed. In an xdist worker a
``WorkerDescriber`` only describes failures, on the report itself
(``report.agentout_failure``, plain JSON that xdist carries to the controller).
"""

from __future__ import annotations

import contextlib
import io
import sys
import time
from collections import Counter
from collections.abc import Generator, Mapping
from pathlib import Path
from types import CodeType
from typing import TYPE_CHECKING, Any, TextIO, cast

import pytest

from agentout.sources.testing.model import Counts, Failure, Run, clean
from agentout.sources.testing.settings import Settings

if TYPE_CHECKING:
    from agentout.sources.testing.reporter import Reporter

__all__ = ["Recorder", "WorkerDescriber"]

ATTRIBUTE = "agentout_failure"
SUBTEST_ATTRIBUTE = "agentout_subtest"
_DETAILS_CHARS = 1 << 20  # per failure, in the full report


class _Discard(io.TextIOBase):
    """Where pytest's own terminal output goes while the agent report replaces it."""

    def write(self, text: str) -> int:
        return len(text)

    def isatty(self) -> bool:
        return False


class _Output:
    """The real terminal: pytest's writer if there is one (so pytester and capture
    see it), else stdout as it was at configure time. ``silence``: pytest's own report
    goes nowhere (the agent report takes its place)."""

    def __init__(self, config: pytest.Config, *, silence: bool = True) -> None:
        self.writer: Any = None
        self.stream: TextIO = sys.stdout
        reporter = config.pluginmanager.get_plugin("terminalreporter")
        if silence and reporter is not None and hasattr(reporter, "_tw"):
            from _pytest._io import TerminalWriter

            # The one private name we touch: every pytest and plugin writes through it.
            self.writer = reporter._tw
            reporter._tw = TerminalWriter(file=cast(TextIO, _Discard()))

    def write(self, text: str) -> None:
        if self.writer is not None:
            self.writer.write(text, flush=True)
        else:
            self.stream.write(text)
            self.stream.flush()


def _subtest(report: pytest.TestReport) -> str:
    context = getattr(report, "context", None)
    if context is None:
        return ""
    parts = []
    msg = getattr(context, "msg", None)
    if msg is not None:
        parts.append(f"[{msg}]")
    kwargs: Mapping[str, Any] = getattr(context, "kwargs", None) or {}
    if kwargs:
        parts.append("(" + ", ".join(f"{k}={v}" for k, v in kwargs.items()) + ")")
    return clean(" ".join(parts) or "(<subtest>)", 300)


def _sections(report: pytest.CollectReport | pytest.TestReport) -> str:
    return "\n".join(
        f"[{title.removeprefix('Captured ')}]\n{content.rstrip()}"
        for title, content in report.sections
        if title.startswith("Captured ") and content.strip()
    )


def _test_code(item: pytest.Item | pytest.Collector) -> CodeType | None:
    function = getattr(item, "obj", None) if isinstance(item, pytest.Item) else None
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    return code if isinstance(code, CodeType) else None


class _Describer:
    """Describes a failure from its live exception and puts the result on its report."""

    def __init__(self, config: pytest.Config) -> None:
        self.root = Path(config.rootpath).resolve()
        self._compared: tuple[str, str, str] | None = None

    def pytest_assertrepr_compare(self, op: str, left: object, right: object) -> None:
        from agentout.sources.testing.extract import safe_repr

        self._compared = (op, safe_repr(left), safe_repr(right))

    def _describe(
        self,
        report: pytest.TestReport | pytest.CollectReport,
        exc: BaseException,
        node: pytest.Item | pytest.Collector,
    ) -> None:
        compared, self._compared = self._compared, None
        # Never break a run: without this the report falls back to pytest's own text.
        with contextlib.suppress(Exception):
            from agentout.sources.testing.extract import describe  # on the first failure

            data = describe(exc, Path(node.path), self.root, compared, _test_code(node))
            setattr(report, ATTRIBUTE, data)


class WorkerDescriber(_Describer):
    """In an xdist worker: describe each failure before xdist sends its report away."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        if report.failed and call.excinfo is not None:
            self._describe(report, call.excinfo.value, item)
        elif report.passed:
            self._compared = None
        return report

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        report = yield
        excinfo = getattr(getattr(report, "call", None), "excinfo", None)
        if report.failed and excinfo is not None:
            self._describe(report, excinfo.value, collector)
        return report

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and hasattr(report, "context"):
            # Named where the subtest's own context is: xdist's copy re-quotes its values.
            setattr(report, SUBTEST_ATTRIBUTE, _subtest(report))


class Recorder(_Describer):
    """In the process that reports: counts, failures, and the agent report at the end.

    Failures are described in ``pytest_exception_interact``, which pytest calls right
    after a failed report with the exception still alive (and not for the many passing
    ones, so the run pays nothing per passing test but a few counts).
    """

    def __init__(
        self, config: pytest.Config, settings: Settings, results: str | None = None
    ) -> None:
        super().__init__(config)
        self.settings = settings
        self.results = results
        self.counts: Counter[str] = Counter()
        self.failed: list[tuple[pytest.TestReport | pytest.CollectReport, str]] = []
        self.files: set[str] = set()
        self.subtest_failures: Counter[str] = Counter()
        self.file_counts: dict[str, Counter[str]] = {}
        self.config = config
        self.interrupted = False
        self.started = time.perf_counter()
        self.collected: dict[str, int] = {}
        # Handing the run over (``agentout test``, ``agentout run``), pytest prints its own
        # report as it would: what a passing run said, which agentout gives when shorter.
        self.output = _Output(config, silence=results is None)
        # The report is rendered by a process that loads the tokenizer and the rest while
        # the tests run (its native loader holds the GIL, so a thread here would stall the
        # tests as long); ``agentout test`` renders the run it is handed itself.
        self.reporter: Reporter | None = None
        if results is None:
            from agentout.sources.testing.reporter import Reporter

            self.reporter = Reporter(settings.tokenizer)

    def pytest_exception_interact(
        self,
        node: pytest.Item | pytest.Collector,
        call: pytest.CallInfo[Any],
        report: pytest.TestReport | pytest.CollectReport,
    ) -> None:
        if report.failed and call.excinfo is not None and not hasattr(report, ATTRIBUTE):
            self._describe(report, call.excinfo.value, node)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        # Called for every test phase and subtest: the passing path does the least.
        # Counted as pytest's summary counts them, but for failed subtests, which pytest
        # adds to "failed" and the report names apart (subtests_failed).
        if report.passed:
            if report.when == "call":
                self._compared = None  # a comparison that failed inside pytest.raises
                if hasattr(report, "context"):
                    self.counts["subtests_passed"] += 1
                elif self.subtest_failures and self.subtest_failures[report.nodeid]:
                    self._count(report, self._outcome(report))
                else:
                    self.counts["xpassed" if hasattr(report, "wasxfail") else "passed"] += 1
            elif report.when == "setup":
                self.files.add(report.nodeid.split("::", 1)[0])
            return
        subtest = hasattr(report, "context")
        if subtest and report.failed and not hasattr(report, SUBTEST_ATTRIBUTE):
            setattr(report, SUBTEST_ATTRIBUTE, _subtest(report))
        if report.when == "setup":
            self.files.add(report.nodeid.split("::", 1)[0])
        xfail = hasattr(report, "wasxfail")
        if report.skipped:
            self.counts["xfailed" if xfail else "skipped"] += 1
            return
        error = report.when != "call"
        if subtest:
            self.subtest_failures[report.nodeid] += 1
            self._count(report, "subtests_failed")
        else:
            self._count(report, "errors" if error else "failed")
            if self.subtest_failures[report.nodeid] and isinstance(report.longrepr, str):
                return  # "contains N failed subtests" (xdist sends it so): listed already
        self.failed.append((report, "error" if error else "failed"))

    def _count(self, report: pytest.TestReport | pytest.CollectReport, key: str) -> None:
        """Count an outcome of the run, and of its file when it is a failing one."""
        self.counts[key] += 1
        if key in ("failed", "errors", "subtests_failed"):
            self.file_counts.setdefault(report.nodeid.split("::", 1)[0], Counter())[key] += 1

    def _outcome(self, report: pytest.TestReport) -> str:
        """A test that passed though some of its subtests failed, as pytest counts it:
        pytest's own hook decides (its ``subtests`` fixture fails the test, unittest's
        ``subTest`` leaves it passed) and sets the report's outcome, as its terminal
        reporter would."""
        status = self.config.hook.pytest_report_teststatus(report=report, config=self.config)
        category = status[0] if status else ""
        return "failed" if category == "failed" or report.failed else "passed"

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.skipped:  # a module skipped as a whole: pytest counts it skipped
            self.counts["skipped"] += 1
            return
        if not report.failed:
            return
        self._count(report, "errors")
        self.files.add(report.nodeid.split("::", 1)[0])
        self.failed.append((report, "error"))

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        self._collected([item.nodeid for item in session.items])

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, ids: list[str]) -> None:
        self._collected(ids)  # under xdist the controller learns the order from workers

    def _collected(self, nodeids: list[str]) -> None:
        if not self.collected:
            self.collected = {nodeid: index for index, nodeid in enumerate(nodeids)}

    def pytest_deselected(self, items: list[pytest.Item]) -> None:
        self.counts["deselected"] += len(items)

    def pytest_warning_recorded(self) -> None:
        self.counts["warnings"] += 1

    def pytest_keyboard_interrupt(self) -> None:
        self.interrupted = True

    def pytest_internalerror(self, excrepr: object) -> None:
        lines = str(excrepr).splitlines()
        self.output.write("".join(f"INTERNALERROR> {line}\n" for line in lines))

    def _failure(self, report: pytest.TestReport | pytest.CollectReport, kind: str) -> Failure:
        data: dict[str, Any] = getattr(report, ATTRIBUTE, None) or {}
        nodeid = report.nodeid
        file, _, test = nodeid.partition("::")
        location = getattr(report, "location", None)
        # Reading order: collection order (the same under xdist), else the test's line.
        position = self.collected.get(nodeid)
        if position is None:
            position = location[1] if location and isinstance(location[1], int) else 0
        error_type, message = data.get("type"), data.get("message")
        if error_type is None:  # no exception object: strict xpass, or pytest's own text
            error_type, message = self._from_text(report)
        details = clean(report.longreprtext, _DETAILS_CHARS)
        captured = _sections(report)
        if captured:
            details = f"{details}\n{clean(captured, _DETAILS_CHARS)}"
        line = data.get("line")
        if line is None and test and location is not None and location[1] is not None:
            line = location[1] + 1  # the test's own definition line
        return Failure(
            file=file,
            test=test,
            error_type=str(error_type),
            message=str(message or ""),
            kind=kind,
            when=report.when or "call",
            line=line,
            origin=data.get("origin"),
            expected=data.get("expected"),
            got=data.get("got"),
            diff=data.get("diff", ""),
            output=captured,
            source=tuple(data.get("source", ())),
            subtest=str(getattr(report, SUBTEST_ATTRIBUTE, "")),
            site=str(data.get("site", "")),
            position=position,
            details=details,
        )

    @staticmethod
    def _from_text(report: pytest.TestReport | pytest.CollectReport) -> tuple[str, str]:
        text = report.longreprtext.strip()
        if text.startswith("[XPASS(strict)]"):
            return "XPASS(strict)", text.removeprefix("[XPASS(strict)]").strip()
        crash = getattr(report.longrepr, "reprcrash", None)
        message = getattr(crash, "message", None) or (text.splitlines() or [""])[-1]
        error_type, sep, rest = message.partition(": ")
        if sep and error_type.replace(".", "").isidentifier():
            return error_type, clean(rest, 4000)
        return "Error", clean(message, 4000)

    # -- the report -------------------------------------------------------------------

    @staticmethod
    def _hand_over(run: Run, path: str) -> None:
        """The run as JSON in a new private file (0600; never over an existing one), its
        secrets hidden first: nothing a test prints or is named reaches the disk."""
        import os

        from agentout.sources.testing.model import run_to_json
        from agentout.sources.testing.secrets import without_secrets

        run, _ = without_secrets(run, "")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(run_to_json(run))

    def run(self, session: pytest.Session, exitstatus: int) -> Run:
        stopped = session.shouldstop or session.shouldfail
        failures = [self._failure(report, kind) for report, kind in self.failed]
        return Run(
            counts=Counts(**self.counts),
            failures=tuple(sorted(failures, key=Failure.sort_key)),
            files=len(self.files),
            duration=time.perf_counter() - self.started,
            interrupted=self.interrupted,
            stopped=stopped if isinstance(stopped, str) else "",
            exit_status=int(exitstatus),
            source="pytest",
            file_counts={file: Counts(**c) for file, c in self.file_counts.items()},
        )

    def pytest_unconfigure(self) -> None:
        if self.reporter is not None:  # never asked: the session ended before its report
            self.reporter.close()

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.results is not None:  # agentout test renders it: hand the run over
            # pytest's own report follows, as pytest prints it (its failures' tracebacks
            # included): what the agent would have read without agentout, the ledger's
            # raw side, and the end of the full report
            self._hand_over(self.run(session, exitstatus), self.results)
            return
        settings = self.settings
        run = self.run(session, exitstatus)
        options: dict[str, Any] = dict(
            focus=settings.focus,
            max_tokens=settings.limit,
            max_chars=settings.max_chars,
            tokenizer=settings.tokenizer,
            format=settings.format,
        )
        text = self.reporter.render(run, **options) if self.reporter is not None else None
        if text is None:
            from agentout.sources.testing.report import render

            text = render(run, **options)
        self.output.write(text)
        # pytest's own summary follows and goes to the discarded stream: with no traceback
        # style it skips formatting every failure's traceback again (the reports already
        # hold theirs, and the full report has been written).
        session.config.option.tbstyle = "no"
