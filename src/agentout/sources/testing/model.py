"""A test run as the report sees it: outcome counts, failures, and their root causes.

Both sources build these: the pytest plugin from live reports, ``junit`` from XML. A
``Failure`` holds every field the report may show (each already cleaned and capped, so a
10 MB message or binary data costs nothing later) plus ``details``, the complete text
(traceback, captured output) that goes to the full report.

Root causes (``cause_key``): failures at the same assertion site (error type, test file
and class, shape of the failing statement) are one cause whatever values they compared;
errors raised in project code are one cause by type, normalized message (numbers,
addresses, ids and quoted literals folded) and origin.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "ASSERTION_TYPES",
    "Cause",
    "Counts",
    "Diagnostic",
    "Failure",
    "Run",
    "cause_key",
    "clean",
    "format_duration",
    "group_causes",
    "normalize_message",
    "origin_file",
    "run_from_json",
    "run_to_json",
]

# Errors that say "the check did not hold" rather than "the code blew up"; focus
# `critical` leaves them out.
ASSERTION_TYPES = frozenset(
    {"AssertionError", "Failed", "XPASS(strict)", "AssertionFailedError", "ComparisonFailure"}
)

_SURROGATES = re.compile(r"[\ud800-\udfff]")
_LOCATION = re.compile(r"(?::\d+){1,2}$")  # an origin's ":line" or ":line:col"


def origin_file(origin: str) -> str:
    """The file of an origin: ``src/lib.rs`` of ``src/lib.rs:13`` or ``src/lib.rs:13:36``."""
    return _LOCATION.sub("", origin)


def clean(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters (with ``…``), lone surrogates made visible.

    Cutting comes first so no later step ever sees more than ``limit`` characters.
    """
    cut = text if len(text) <= limit else text[: max(0, limit - 1)] + "…"
    return _SURROGATES.sub(lambda m: f"\\u{ord(m.group()):04x}", cut)


@dataclass(frozen=True)
class Failure:
    """One failed test, error, or failed subtest.

    ``file`` is the test file relative to the root directory ("" when unknown);
    ``test`` the name within it (``Class::test[param]``, "" for a module that did not
    collect); ``line`` the failing line in the test file; ``origin`` the innermost frame
    of the project's own code as ``path:line`` when the error was raised elsewhere.
    """

    file: str
    test: str
    error_type: str
    message: str = ""
    kind: str = "failed"  # "failed" or "error" (setup, teardown, collection)
    when: str = "call"
    line: int | None = None
    origin: str | None = None
    expected: str | None = None
    got: str | None = None
    diff: str = ""
    output: str = ""
    source: tuple[str, ...] = ()
    subtest: str = ""
    position: int = 0  # the test's line in its file, for reading order
    details: str = ""
    site: str = ""  # the failing statement's shape (sites.site_shape), "" when unknown
    column: int | None = None  # on ``line``, when the runner says it (a Rust panic's)

    @property
    def scope(self) -> str:
        """The test's class (``Class::Inner``), "" for a module-level test."""
        base = self.test.split("[", 1)[0]
        return base.rpartition("::")[0]

    @property
    def project_origin(self) -> str | None:
        """The origin when it is outside the test's own file: project code that raised."""
        if self.origin and origin_file(self.origin) != self.file:
            return self.origin
        return None

    @property
    def name(self) -> str:
        """The test name with its subtest, as pytest prints it."""
        return f"{self.test} {self.subtest}" if self.subtest else self.test

    @property
    def nodeid(self) -> str:
        return f"{self.file}::{self.test}" if self.test else self.file

    @property
    def location(self) -> str:
        """Where the error comes from: the origin, else the failing line of the test."""
        if self.origin:
            return self.origin
        return f"{self.file}:{self.line}" if self.line else self.file

    @property
    def is_assertion(self) -> bool:
        if self.error_type == "panic":  # Rust: assert!/assert_eq! panic, saying so
            return self.message.startswith("assertion")
        return self.error_type.rsplit(".", 1)[-1] in ASSERTION_TYPES

    def sort_key(self) -> tuple[str, int, str]:
        return (self.file, self.position, self.test)


@dataclass(frozen=True)
class Counts:
    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    xfailed: int = 0
    xpassed: int = 0
    subtests_passed: int = 0
    subtests_failed: int = 0
    deselected: int = 0
    warnings: int = 0

    @property
    def tests(self) -> int:
        return self.passed + self.failed + self.skipped + self.xfailed + self.xpassed


@dataclass(frozen=True)
class Diagnostic:
    """A compiler's warning or error printed while building the tests (``cargo test``
    compiles before it runs): where, and what it says."""

    at: str  # file:line:col
    message: str
    severity: str = "warning"


@dataclass(frozen=True)
class Run:
    """A whole run: counts, failures in reading order, and how it ended."""

    counts: Counts
    failures: tuple[Failure, ...] = ()
    files: int = 0
    duration: float | None = None
    interrupted: bool = False
    stopped: str = ""
    exit_status: int | None = None
    source: str = "pytest"
    # Each test file's own counts (failed, subtests_failed, errors) when the source knows
    # them apart from the failures listed (a test failed by its subtests is counted, not
    # listed); else the P lines count the failures.
    file_counts: Mapping[str, Counts] | None = None
    diagnostics: tuple[Diagnostic, ...] = ()

    def counts_of(self, file: str) -> Counts:
        """The failed/subtests_failed/errors counts of one file, as its P line says them."""
        if self.file_counts is not None and file in self.file_counts:
            return self.file_counts[file]
        mine = [f for f in self.failures if f.file == file]
        errors = sum(1 for f in mine if f.kind == "error")
        return Counts(failed=len(mine) - errors, errors=errors)

    @property
    def passed(self) -> bool:
        if self.exit_status is not None:
            return self.exit_status == 0
        c = self.counts
        return not (c.failed or c.subtests_failed or c.errors or self.interrupted)


@dataclass(frozen=True)
class Cause:
    """Failures sharing one root cause; ``number`` counts causes from 1 in reading order."""

    number: int
    failures: tuple[Failure, ...]

    @property
    def first(self) -> Failure:
        return self.failures[0]


_FOLDS = (
    # quoted literals first, so numbers inside them do not matter
    (re.compile(r"'(?:[^'\\\n]|\\.){0,200}'|\"(?:[^\"\\\n]|\\.){0,200}\""), "S"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "ADDR"),
    (re.compile(r"\b[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}\b"), "ID"),
    (re.compile(r"\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{12,}\b"), "ID"),
    (re.compile(r"[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"), "N"),
)
_KEY_CHARS = 300


def normalize_message(message: str) -> str:
    """The first line of ``message`` with the parts that vary per test folded.

    ``KeyError: 'DE'`` and ``KeyError: 'FR'`` raised at one line are one cause, as are
    ``assert 50 == 200`` and ``assert 450 == 900``.
    """
    first = message.strip().split("\n", 1)[0][:_KEY_CHARS]
    for pattern, token in _FOLDS:
        first = pattern.sub(token, first)
    return " ".join(first.split())


def cause_key(failure: Failure) -> tuple[str, ...]:
    """What makes two failures one root cause.

    A failed assertion at the test's own line (or in an assertion helper of its file): its
    type, its file and class, the shape of the failing statement (the same
    ``self.assertEqual``, helper call or assert of the same calls) and that helper's line,
    whatever values were compared. An error, or an assertion raised in project code
    outside the test file, or one whose statement is not known (JUnit XML): its type, its
    message with what varies folded, and its location (the origin, else the line).
    """
    if failure.site and failure.is_assertion and failure.project_origin is None:
        return ("site", failure.error_type, failure.file, failure.scope, failure.site,
                failure.origin or "")  # fmt: skip
    return ("raised", failure.error_type, normalize_message(failure.message), failure.location)


def group_causes(failures: Iterable[Failure]) -> list[Cause]:
    """Root causes in order of their first failure; members keep the given order."""
    members: dict[tuple[str, ...], list[Failure]] = {}
    for failure in failures:
        members.setdefault(cause_key(failure), []).append(failure)
    return [Cause(n, tuple(group)) for n, group in enumerate(members.values(), start=1)]


def format_duration(seconds: float) -> str:
    """As Tryouts prints them (microseconds as ASCII ``us``, which a records value shows
    without quotes): us under 1 ms, ms under 1 s, seconds with two decimals above."""
    micros = round(seconds * 1_000_000)
    if micros < 1000:
        return f"{max(micros, 0)}us"
    millis = round(seconds * 1000)
    if millis < 1000:
        return f"{millis}ms"
    return f"{seconds:.2f}s"


def run_to_json(run: Run) -> str:
    """``run`` as JSON text: how the pytest plugin hands a run to ``agentout test``."""
    import dataclasses
    import json

    data = dataclasses.asdict(run)
    return json.dumps(data, ensure_ascii=False)


def run_from_json(text: str) -> Run:
    """The ``Run`` that ``run_to_json`` wrote; ``ValueError`` when the text is not one."""
    import json

    try:
        data = json.loads(text)
        failures = tuple(
            Failure(**{**item, "source": tuple(item.get("source", ()))})
            for item in data.pop("failures")
        )
        file_counts = data.pop("file_counts", None)
        diagnostics = tuple(Diagnostic(**item) for item in data.pop("diagnostics", ()))
        return Run(
            counts=Counts(**data.pop("counts")),
            failures=failures,
            file_counts=None
            if file_counts is None
            else {file: Counts(**counts) for file, counts in file_counts.items()},
            diagnostics=diagnostics,
            **data,
        )
    except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a run: {exc}") from None
