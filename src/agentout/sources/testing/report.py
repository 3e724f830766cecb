"""The agent report of a test run: a records ``Result`` that ``pack`` fits to the budget.

Records, in reading order::

    S status=FAIL passed=24 failed=20 errors=3 files=10 causes=9 time=1.06s   (forced)
    P file=tests/test_cart.py failed=3                                        (per file)
    R cause=2 tests=["test_tax L51","test_total L55"] type=KeyError msg="'DE'"
      origin=src/shop/money.py:12                                             (per cause)
    F full=9b930100f0cb56b7                        (summary: agentout show 9b930100f0cb56b7)

A ``P`` line names a file with failures (its path once, as TOPA does, rather than
on every record) and counts them; the ``R`` records below it are that file's. Each ``R``
is one root cause within one file, every failing test of it named (at the tersest view,
one and ``more=N``), with ``L`` the failing line in the test file; a cause seen in several
files is described in its first record, the others say ``cause=N``. Focus ``summary`` has
only the ``P`` lines. Views run from the tersest (test, line, error type and message)
through expected vs got and the origin, every test's name, to the diff and captured
output (and source lines for focus ``debug``). Outside ``debug``, a long expected/got is
a window around the first difference, the diff comes only when expected/got do not show
that difference, and an assertion helper in the test file is not repeated as ``origin``.
``pack`` picks records and views; this module never drops anything on its own, apart
from what the focus mode asks to leave out. The first record of every root cause has
priority over the rest (errors before failed assertions), so a tight budget still shows
each cause once; a file's ``P`` line is walked just before the first of its records, so
no record is shown without its file. ``agentout.sources.testing.readback`` reads a
report back.

Whenever the run has failures, the complete report (every failure, its full traceback
and captured output) is written to agentout's private spill store and the summary line
names it by its reference, the 16 hex digits ``agentout show`` takes (a path costs a
dozen tokens more, and says nothing the reference does not).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentout.records import Record, Result
from agentout.sources.testing.error_line import MSG_CHARS, stated
from agentout.sources.testing.model import (
    Cause,
    Diagnostic,
    Failure,
    Run,
    clean,
    format_duration,
    group_causes,
    origin_file,
)
from agentout.sources.testing.readback import split_top
from agentout.sources.testing.secrets import without_secrets
from agentout.tokens import Tokenizer, get_tokenizer
from agentout.tokens.truncate import truncate_string

__all__ = ["NO_TESTS", "build", "full_report", "render", "report"]

_NAME_CHARS = 160
# Token caps of the tersest view's free text, as written (see _short), so the status, a
# file's P line and one failure at their tersest fit settings.MIN_LIMIT whatever the input
# (a 10 MB message, escaped quotes, emoji, a long path) in every format, with source= and
# focus= in the header (tests/testing/test_report_budget.py tries the costliest texts).
_TERSE = {"file": 16, "test": 14, "error": 26, "msg": 16}
# How much of a diff and captured output the fullest view holds, by focus: `failures`
# keeps each failure to a few lines; `debug` shows more of everything.
_DIFF_LINES = {"debug": 40}
_DEFAULT_DIFF_LINES = 8
_NAMES = 200  # test names listed in one record at most; the rest are counted
_OUTPUT_LINES = {"failures": 5, "debug": 30}
_LINE_CHARS = 200
_ESCAPED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")

_COUNT_FIELDS = (
    "passed",
    "failed",
    "subtests_failed",
    "errors",
    "skipped",
    "xfailed",
    "xpassed",
    "subtests_passed",
    "deselected",
    "warnings",
)


_FAILING = ("failed", "subtests_failed", "errors")


@dataclass(frozen=True)
class _Group:
    """The failures of one cause in one file: one ``R`` record."""

    cause: Cause
    failures: tuple[Failure, ...]
    first_of_cause: bool
    linked: bool  # the cause has other records, so each names it (cause=N)


NO_TESTS = "no tests collected"


def _status_word(run: Run) -> str:
    """PASS or FAIL; "no tests collected" when nothing ran and nothing failed (pytest's
    exit status 5, or a runner that found no tests)."""
    counts = run.counts
    ran = counts.tests or counts.errors or counts.subtests_failed or run.failures
    if not ran and not run.interrupted:
        return NO_TESTS
    return "PASS" if run.passed else "FAIL"


def _status(run: Run, causes: int) -> Record:
    status = _status_word(run)
    counts = {name: getattr(run.counts, name) for name in _COUNT_FIELDS}
    terse: dict[str, Any] = {"status": status}
    terse.update({k: v for k, v in counts.items() if k in _FAILING and v})
    full: dict[str, Any] = {"status": status, **{k: v for k, v in counts.items() if v}}
    if causes < len(run.failures):  # a cascade: fewer causes than failures says something
        full["causes"] = causes
    if run.duration is not None:
        full["time"] = format_duration(run.duration)
    if run.interrupted:
        full["interrupted"] = True
    if run.stopped:
        full["stopped"] = clean(run.stopped, 120)
    if run.exit_status not in (None, 0, 1):
        full["exit"] = run.exit_status
    return Record.of(terse, full, kind="S", forced=True)


def _file_record(run: Run, file: str, listed: Sequence[Failure] | None, tok: Tokenizer) -> Record:
    """``P file=... failed=N``: the counts only where they say more than the records below
    (errors or subtests among them, a focus that lists only some, or with ``listed`` None,
    a page that leaves some out): a ``P`` line with no count means every test its records
    name failed, and nothing else did."""
    fields: dict[str, Any] = {"file": _short(clean(file or "?", _NAME_CHARS), _TERSE["file"], tok)}
    counts = {k: getattr(run.counts_of(file), k) for k in _FAILING}
    listed = listed or ()
    plain = all(f.kind != "error" and f.test and not f.subtest for f in listed)
    if not plain or counts != {"failed": len(listed), "subtests_failed": 0, "errors": 0}:
        fields.update({k: v for k, v in counts.items() if v})
    return Record.of(fields, kind="P")


def _diagnostic_record(diagnostic: Diagnostic, tok: Tokenizer) -> Record:
    """``W at=file:line:col msg=...`` (``E`` and its code for an error): the location a
    person would jump to, and the compiler's message."""
    at = {"at": clean(diagnostic.at, _NAME_CHARS)}
    message = clean(diagnostic.message, MSG_CHARS)
    code = diagnostic.severity.partition("[")[2].rstrip("]")
    fields = {**at, **({"code": code} if code else {})}
    terse = {**fields, "msg": _short(message, _TERSE["msg"], tok)}
    kind = "W" if diagnostic.severity == "warning" else "E"
    return Record.of(terse, {**fields, "msg": message}, kind=kind)


def _tail(text: str, lines: int) -> str:
    """The last ``lines`` lines of captured output: the end is what usually explains."""
    all_lines = text.rstrip("\n").split("\n")
    kept = [clean(line, _LINE_CHARS) for line in all_lines[-lines:]]
    if len(all_lines) > lines:
        kept.insert(0, f"… {len(all_lines) - lines} lines before")
    return "\n".join(kept)


def _diff(text: str, lines: int) -> str:
    kept = text.split("\n")
    shown = [clean(line, _LINE_CHARS) for line in kept[:lines]]
    if len(kept) > lines:
        shown.append(f"… {len(kept) - lines} more lines")
    return "\n".join(shown)


def _split_name(failure: Failure) -> tuple[str, str]:
    """``test_x[a-1]`` with subtest ``(n=2)`` -> (``test_x``, ``[a-1] (n=2)``)."""
    test = failure.test
    base, case = test, ""
    if test.endswith("]") and "[" in test:
        cut = test.index("[", test.rfind("::") + 1) if "[" in test[test.rfind("::") + 1 :] else -1
        if cut > 0:
            base, case = test[:cut], test[cut:]
    if failure.subtest:
        case = f"{case} {failure.subtest}".strip()
    return base, case


def _tests(failures: Sequence[Failure], terse: bool, tok: Tokenizer) -> dict[str, Any]:
    """Who failed: one test (and how many more), or every name.

    Subtests of one test are listed under its name (``subtests``); several
    tests, parametrized cases among them (``test_x[a-1]``, whole), are the first as
    ``test`` with its ``L`` and the others in ``also`` (see ``_also``), so the values
    shown are plainly the first's.
    """
    first = failures[0]
    if not first.test:  # a file that did not collect: no test, its error is the point
        out: dict[str, Any] = {"L": first.line} if first.line else {}
        if len(failures) > 1:
            out["more"] = len(failures) - 1
        return out
    if terse or len(failures) == 1:
        name = clean(first.name, _NAME_CHARS)
        out = {"test": _short(name, _TERSE["test"], tok) if terse else name}
        if len(failures) > 1:
            out["more"] = len(failures) - 1
        return {**out, **_where(first)}
    same_line = len({f.line for f in failures}) == 1
    shown = failures[:_NAMES]
    split = [_split_name(f) for f in shown]
    # Parametrized cases keep their whole names (``test_x[a-1]``, ``test_x[a-1] (i=2)``):
    # what the runner printed and what it takes back to run one case again.
    subtests = all(case and not case.startswith("[") for _, case in split)
    if len({base for base, _ in split}) == 1 and subtests:

        def with_line(text: str, failure: Failure) -> str:
            text = clean(text, _NAME_CHARS)
            return text if same_line or not failure.line else f"{text} L{failure.line}"

        cases = [case for _, case in split]
        out = {
            "test": clean(split[0][0], _NAME_CHARS),
            "subtests": [with_line(case, f) for case, f in zip(cases, shown, strict=True)],
        }
        if same_line and first.line:
            out["L"] = first.line
    else:
        out = {"test": clean(first.name, _NAME_CHARS), **_where(first)}
        out["also"] = _also(first, shown[1:])
    if len(failures) > len(shown):
        out["more"] = len(failures) - len(shown)
    return out


def _where(failure: Failure) -> dict[str, int]:
    """``L`` (and ``col`` when the runner gave one): where in the file the test failed."""
    if not failure.line:
        return {}
    return {"L": failure.line, "col": failure.column} if failure.column else {"L": failure.line}


def _also(first: Failure, others: Sequence[Failure]) -> str | list[str]:
    """The other tests of a record, compactly: ``Class::test_n L860, Class::test_odd
    L833``. Each name is whole, as the runner prints it and takes it back to run that
    test again; a line equal to the first test's ``L`` is not repeated."""
    parts = []
    for failure in others:
        line = f" L{failure.line}" if failure.line and failure.line != first.line else ""
        parts.append(clean(failure.name, _NAME_CHARS) + line)
    joined = ", ".join(parts)
    # A name that would split wrongly (", " outside brackets) keeps the list form.
    return joined if split_top(joined) == parts else parts


class _Quoted:
    """Counts a text as the formats write it, inside a JSON string: quotes, backslashes
    and controls escaped. A cut by this count keeps its promise once rendered."""

    def __init__(self, tok: Tokenizer) -> None:
        self.tok = tok
        self.name = tok.name

    def count(self, text: str) -> int:
        return self.tok.count(json.dumps(text, ensure_ascii=False))


def _short(text: str, tokens: int, tok: Tokenizer) -> str:
    """``text`` cut to ``tokens`` as written: what keeps a tersest view small whatever the
    input. Controls and line separators become U+FFFD first (no use to a reader, and
    several tokens each once escaped)."""
    return truncate_string(_ESCAPED.sub("\ufffd", text), tokens, _Quoted(tok), suffix="…")


def _views(group: _Group, focus: str, tok: Tokenizer) -> list[dict[str, Any]]:
    failures = group.failures
    first = failures[0]
    where: dict[str, Any] = {"cause": group.cause.number} if group.linked else {}
    terse, full = _tests(failures, True, tok), _tests(failures, False, tok)
    also = {"also": full.pop("also")} if "also" in full else {}
    if not group.first_of_cause:  # the cause's details are in its first record
        return [{**where, **terse}, {**where, **full, **also}]

    when = {"when": first.when} if first.when != "call" else {}
    # The error line as the runner printed it (``KeyError: 'DE'``, ``assert 2 == 3``): what
    # a reader knows at sight; expected and got only where that line does not show them.
    said = stated(first, focus)
    error = {"error": said.error}
    terse_error = {"error": _short(said.error, _TERSE["error"], tok)}
    compared = first.expected is not None and first.got is not None
    what, wants_diff = said.values, said.wants_diff
    origin = {"origin": clean(first.origin, _NAME_CHARS)} if first.origin else {}
    if focus != "debug" and compared and _in_test_file(first):
        origin = {}  # an assertion helper of the test file: L already points there
    views = [
        {**where, **terse, **when, **terse_error},
        {**where, **terse, **when, **error, **what, **origin},
        {**where, **full, **when, **error, **what, **origin, **also},
    ]
    extra: dict[str, Any] = {}
    if first.diff and wants_diff:
        extra["diff"] = _diff(first.diff, _DIFF_LINES.get(focus, _DEFAULT_DIFF_LINES))
    if first.output:
        extra["out"] = _tail(first.output, _OUTPUT_LINES.get(focus, 5))
    if focus == "debug" and first.source:
        extra["src"] = "\n".join(first.source)
    if extra:
        views.append({**views[-1], **extra, **also})
    return views


def _in_test_file(failure: Failure) -> bool:
    """Whether the failure's origin is a line of its own test file (a helper there)."""
    return failure.origin is not None and origin_file(failure.origin) == failure.file


def _dedupe(views: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for view in views:
        if not out or view != out[-1]:
            out.append(view)
    return out


def _select(run: Run, focus: str) -> list[Failure]:
    """The failures a focus mode shows (``summary`` shows none, only files)."""
    failures = list(run.failures)
    if focus == "summary":
        return []
    if focus == "critical":
        return [f for f in failures if not f.is_assertion]
    if focus == "first-failure":
        return list({f.file: f for f in reversed(failures)}.values())[::-1]
    return failures


def _groups(
    shown: Sequence[Failure], cause_of: Mapping[int, Cause]
) -> list[tuple[Cause, tuple[Failure, ...]]]:
    """One group per cause per file; a test failing in several cases (parameters,
    subtests) gets its own group, so its cases are listed together."""
    by_key: dict[tuple[str, int, str], list[Failure]] = {}
    for failure in shown:
        cause = cause_of[id(failure)]
        by_key.setdefault((failure.file, cause.number, ""), []).append(failure)
    out: dict[tuple[str, int, str], list[Failure]] = {}
    for (file, number, _), members in by_key.items():
        bases = Counter(_split_name(f)[0] for f in members if f.test)
        for failure in members:
            base = _split_name(failure)[0]
            if not failure.test:  # a file's own error never shares a record with its tests
                base = "\0"
            key = (file, number, base if bases[base] > 1 or base == "\0" else "")
            out.setdefault(key, []).append(failure)
    causes = {number: cause_of[id(m[0])] for (_, number, _), m in out.items()}
    return [(causes[number], tuple(m)) for (_, number, _), m in out.items()]


def build(
    run: Run,
    focus: str = "failures",
    full: str | None = None,
    tokenizer: str | Tokenizer | None = None,
    file_counts: bool = False,
    header: Mapping[str, Any] | None = None,
) -> tuple[Result, list[int]]:
    """The report's ``Result`` and the priority order ``pack`` walks its records in; with
    ``file_counts``, every ``P`` line counts its file's failures (a page that leaves
    records out, or shows them terser, no longer names every failure of a file).
    ``header``: fields the header says before the report's own (``python=``)."""
    tok = get_tokenizer(tokenizer)
    causes = group_causes(run.failures)
    cause_of = {id(f): cause for cause in causes for f in cause.failures}
    by_file: dict[str, list[Failure]] = {}
    for failure in run.failures:
        by_file.setdefault(failure.file, []).append(failure)
    groups_of: dict[str, list[tuple[Cause, tuple[Failure, ...]]]] = {}
    for cause, members in _groups(_select(run, focus), cause_of):
        groups_of.setdefault(members[0].file, []).append((cause, members))
    shown_files = by_file if focus == "summary" else groups_of
    records_of = Counter(cause.number for groups in groups_of.values() for cause, _ in groups)
    records: list[Record] = [_status(run, len(causes))]
    file_record: dict[int, int] = {}  # R record index -> its file's P record index
    priority: list[tuple[bool, int]] = []
    rest: list[int] = []
    seen: set[int] = set()
    for file in shown_files:
        file_line = len(records)
        listed = [f for _, members in groups_of.get(file, ()) for f in members]
        records.append(_file_record(run, file, None if file_counts else listed, tok))
        for cause, members in groups_of.get(file, ()):
            first = cause.number not in seen
            seen.add(cause.number)
            group = _Group(cause, members, first, records_of[cause.number] > 1)
            file_record[len(records)] = file_line
            if first:  # errors before failed assertions: what blocks the run comes first
                priority.append((members[0].is_assertion, len(records)))
            else:
                rest.append(len(records))
            records.append(Record.of(*_dedupe(_views(group, focus, tok))))
    # A file's P line comes just before the first of its records pack walks to, so a
    # record is never shown without the line that names its file.
    walk = (
        i
        for index in (*(i for _, i in sorted(priority)), *rest)
        for i in (file_record[index], index)
    )
    order = list(dict.fromkeys(walk)) if focus != "summary" else list(range(1, len(records)))
    # The compiler's own warnings (cargo builds the tests first): after every failure.
    order.extend(range(len(records), len(records) + len(run.diagnostics)))
    records.extend(_diagnostic_record(d, tok) for d in run.diagnostics)
    # The last line: the full report's reference (``agentout show REF``), or (nothing to
    # keep) the status again.
    summary: dict[str, Any] = {"full": full} if full else {"status": _status_word(run)}
    header_fields: dict[str, Any] = dict(header or {})
    if run.source != "pytest":
        header_fields["source"] = run.source
    if focus != "failures":
        header_fields["focus"] = focus
    return Result.of(records, header=header_fields, summary=summary), order


def full_report(run: Run, output: str = "") -> str:
    """Every failure with its complete text: what the agent reads when it needs more;
    ``output`` (what the runner printed) at the end."""
    causes = group_causes(run.failures)
    number = {id(f): c.number for c in causes for f in c.failures}
    status = _status(run, len(causes)).fullest
    lines = [
        "agentout full test report: " + " ".join(f"{k}={v}" for k, v in status.items()),
        "",
    ]
    for failure in run.failures:
        label = "ERROR" if failure.kind == "error" else "FAILED"
        title = f"{failure.nodeid} {failure.subtest}".rstrip()
        lines.append(f"==== {label} {title} (cause {number[id(failure)]}: {failure.location})")
        lines.append(failure.details.rstrip() or f"{failure.error_type}: {failure.message}")
        lines.append("")
    if output.strip():
        lines += ["==== what the test runner printed", output.rstrip(), ""]
    return "\n".join(lines)


def _spill(run: Run, output: str = "") -> tuple[str, str] | None:
    """Keep the full report in the private store: (its path, the reference ``agentout
    show`` takes); None if it cannot be written."""
    from agentout.deliver.text import short_ref
    from agentout.errors import AgentoutError
    from agentout.store.spill import SpillStore

    try:
        text = _without_secrets(full_report(run, output))
        # Named by its bytes: the same run gives the same report, ``full=`` included.
        with SpillStore.default().open(kind="test", suffix=".txt", by_content=True) as out:
            out.write(text)
            ref = out.commit()
    except (OSError, AgentoutError):  # a full disk or an unsafe store: report inline only
        return None
    return ref.location, short_ref(ref)


def _without_secrets(text: str) -> str:
    """The full report hidden once more as a whole before it is written: its fields were
    hidden one by one (``without_secrets``), and a secret may still span two of them."""
    from agentout.redact import default_redactor

    return default_redactor().redact_text(text)[0]


def report(
    run: Run,
    *,
    focus: str = "failures",
    max_tokens: int | None = 5000,
    max_chars: int | None = None,
    tokenizer: str | None = None,
    format: str = "records",
    output: str = "",
    header: Mapping[str, Any] | None = None,
) -> tuple[str, str | None]:
    """The agent report of ``run`` within ``max_tokens`` (and ``max_chars``), and the path
    of the full report kept in the spill store (None when there was nothing to keep); the
    report's last line names it by the reference ``agentout show`` takes.

    A budget too small for the status line and the last line still gets them, and the
    header says ``over_budget=true``. ``output``, what the runner printed, goes to the
    full report only; ``header``: fields the header says first."""
    from agentout.pack import Packed, pack

    run, output = without_secrets(run, output)
    keep = bool(run.failures) or (bool(output.strip()) and not run.passed)
    kept = _spill(run, output) if keep else None
    full, ref = kept if kept is not None else (None, None)

    def packed(file_counts: bool) -> Packed:
        result, order = build(run, focus, ref, tokenizer, file_counts, header)
        return pack(
            result,
            format=format,
            max_tokens=max_tokens,
            max_chars=max_chars,
            tokenizer=tokenizer,
            order=order,
        )

    page = packed(file_counts=False)
    if page.stats.omitted or page.stats.reduced:
        # It does not show every failure whole: then each file's counts say what it has.
        page = packed(file_counts=True)
    return page.text, full


def render(
    run: Run,
    *,
    focus: str = "failures",
    max_tokens: int | None = 5000,
    max_chars: int | None = None,
    tokenizer: str | None = None,
    format: str = "records",
) -> str:
    """The agent report of ``run``, within ``max_tokens`` (and ``max_chars``)."""
    text, _ = report(
        run,
        focus=focus,
        max_tokens=max_tokens,
        max_chars=max_chars,
        tokenizer=tokenizer,
        format=format,
    )
    return text
