"""The report never exceeds its budget: properties over generated runs, no pytest run."""

from __future__ import annotations

import json
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.formats.records import parse
from agentout.pack import pack
from agentout.records import Record
from agentout.sources.testing.model import Counts, Failure, Run
from agentout.sources.testing.readback import named_tests
from agentout.sources.testing.report import build
from agentout.sources.testing.settings import FOCUS_MODES, MIN_LIMIT
from agentout.tokens import count

# Any characters at all, lone surrogates and control characters included.
_ANY = st.characters(codec=None, exclude_categories=())
_TEXT = st.text(_ANY, max_size=80)
_MESSAGE = st.one_of(
    _TEXT,
    st.binary(max_size=200).map(repr),
    st.just("x" * 3_000),
    st.builds(lambda a, b: f"assert {a} == {b}", st.integers(), st.integers()),
)
_FULL = "/home/dev/.cache/agentout/spill/20250303-test-0123456789abcdef.txt"
# What costs the most once written: emoji, CJK, escaped quotes and controls, long paths.
_COSTLY = [
    ". " * 300,
    "ሀ" * 300,
    "🙂" * 200,
    "中" * 300,
    '"\\' * 200,
    "\x00\x1b[31m" * 100,
    "\u2028" * 100,
    "tests/" + "very_long_directory_name/" * 10 + "test_x.py",
]
_EXTREME = st.sampled_from(_COSTLY)

_failures = st.builds(
    Failure,
    file=st.one_of(st.sampled_from(["tests/test_a.py", "tests/test_b.py", ""]), _TEXT, _EXTREME),
    test=st.one_of(st.sampled_from(["test_x", "test_y[1]", "T::test_z[é-2]", ""]), _TEXT, _EXTREME),
    error_type=st.one_of(
        st.sampled_from(["AssertionError", "KeyError", "ValueError"]), _TEXT, _EXTREME
    ),
    message=st.one_of(_MESSAGE, _EXTREME),
    kind=st.sampled_from(["failed", "error"]),
    when=st.sampled_from(["call", "setup", "teardown", "collect"]),
    line=st.one_of(st.none(), st.integers(1, 10**7)),
    origin=st.one_of(st.none(), st.just("src/m.py:12"), _TEXT),
    expected=st.one_of(st.none(), _TEXT, st.just("{'a': 1, 'b': 2}")),
    got=st.one_of(st.none(), _TEXT, st.just("{'a': 1, 'b': 3}")),
    diff=_TEXT,
    output=st.one_of(st.just(""), _TEXT, st.just("line\n" * 5000)),
    source=st.lists(_TEXT, max_size=3).map(tuple),
    subtest=st.one_of(st.just(""), st.just("(n=1)"), _TEXT),
    position=st.integers(0, 100),
)
_runs = st.builds(
    Run,
    counts=st.builds(Counts, passed=st.integers(0, 10**6), failed=st.integers(0, 10**6)),
    failures=st.lists(_failures, min_size=1, max_size=30).map(tuple),
    files=st.integers(0, 10**4),
    duration=st.one_of(st.none(), st.floats(0, 10**5)),
    interrupted=st.booleans(),
    stopped=_TEXT,
    exit_status=st.one_of(st.none(), st.integers(0, 5)),
    source=st.sampled_from(["pytest", "junit"]),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    run=_runs,
    focus=st.sampled_from(FOCUS_MODES),
    fmt=st.sampled_from(["records", "json", "text"]),
    limit=st.one_of(st.integers(MIN_LIMIT, 400), st.integers(400, 3000)),
)
def test_report_never_exceeds_the_limit(run: Run, focus: str, fmt: str, limit: int) -> None:
    result, order = build(run, focus, _FULL if run.failures else None)
    packed = pack(result, format=fmt, max_tokens=limit, order=order)
    assert count(packed.text) == packed.stats.tokens <= limit
    assert not packed.stats.over_budget
    again = pack(
        build(run, focus, _FULL if run.failures else None)[0],
        format=fmt,
        max_tokens=limit,
        order=order,
    )
    assert again.text == packed.text  # same input, same bytes
    if fmt == "records":
        lines = parse(packed.text)  # whole records: every line parses
        assert lines[0][0] == "H"
        assert lines[1][0] == "S"
        assert lines[-1][0] == "F"
        assert sum(1 for kind, _ in lines if kind in "RP") == packed.stats.included
        # every R shown sits under the P line of its own file, as in the whole report
        shown = _file_above([record for record, _ in packed.document.records])
        assert shown.items() <= _file_above(result.records).items()
        assert len(shown) == sum(1 for kind, _ in lines if kind == "R")
    elif fmt == "json":
        assert len(json.loads(packed.text)["records"]) == packed.stats.included + 1


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    run=_runs,
    focus=st.sampled_from([f for f in FOCUS_MODES if f != "summary"]),
    fmt=st.sampled_from(["records", "json", "text"]),
)
def test_the_smallest_limit_still_shows_a_failure(run: Run, focus: str, fmt: str) -> None:
    """MIN_LIMIT is set so the status, the summary and one failure (its file's P line and
    its R record, at their tersest) always fit, whatever the failure holds."""
    result, order = build(run, focus, _FULL)
    if not any(record.kind == "R" for record in result.records):
        return  # the focus shows no failure of this run (critical, all assertions)
    packed = pack(result, format=fmt, max_tokens=MIN_LIMIT, order=order)
    assert any(record.kind == "R" for record, _ in packed.document.records)


@pytest.mark.parametrize("focus", ["failures", "first-failure"])
@pytest.mark.parametrize("fmt", ["records", "json", "text"])
@pytest.mark.parametrize("worst", _COSTLY)
def test_the_smallest_limit_shows_a_failure_made_of_the_costliest_text(
    worst: str, fmt: str, focus: str
) -> None:
    """With the header's longest source fields too (``source=junit``, ``focus=...``)."""
    failure = Failure(
        file=worst, test=worst, error_type=worst, message=worst, kind="error", when="teardown",
        line=10**7, origin=worst, expected=worst, got=worst, output=worst, subtest=worst,
    )  # fmt: skip
    counts = Counts(passed=10**6, failed=10**6, errors=10**6, skipped=10**6, xfailed=10**6)
    run = Run(counts, (failure,), 10**4, 10**5, source="junit")
    result, order = build(run, focus, _FULL)
    packed = pack(result, format=fmt, max_tokens=MIN_LIMIT, order=order)
    assert [record.kind for record, _ in packed.document.records] == ["S", "P", "R"]
    assert packed.stats.tokens <= MIN_LIMIT


def _file_above(records: Sequence[Record]) -> dict[int, int]:
    """id of each ``R`` record -> id of the ``P`` record last seen above it."""
    above: dict[int, int] = {}
    file = 0
    for record in records:
        if record.kind == "P":
            file = id(record)
        elif record.kind == "R":
            above[id(record)] = file
    return above


@settings(max_examples=25, deadline=None)
@given(run=_runs)
def test_with_room_every_failing_test_is_named_or_counted(run: Run) -> None:
    result, order = build(run, "failures", _FULL)
    packed = pack(result, max_tokens=None, order=order)
    assert packed.stats.omitted == 0
    named = 0
    for kind, fields in parse(packed.text):
        if kind != "R":
            continue
        names = named_tests(fields)  # test, also=, ids, subtests or cases
        # a file that did not collect names no test; more= counts the rest
        named += max(len(names), 1) + fields.get("more", 0)
    assert named == len(run.failures)
