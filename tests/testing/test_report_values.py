"""Expected vs got in the report: long values shown around their first difference."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.formats.records import parse
from agentout.pack import pack
from agentout.sources.testing.model import Counts, Failure, Run
from agentout.sources.testing.report import build

_WORDS = [f"word{n}" for n in range(40)]


def _row(failure: Failure, focus: str = "failures") -> dict[str, Any]:
    """The one R record of a run failing with ``failure``, packed with room to spare."""
    result, order = build(Run(Counts(failed=1), (failure,), files=1), focus)
    text = pack(result, format="records", max_tokens=20_000, order=order).text
    return next(fields for kind, fields in parse(text) if kind == "R")


def _lists_failure(expected: list[str], got: list[str], **extra: Any) -> Failure:
    return Failure(
        file="tests/test_wrap.py",
        test="test_wrap",
        error_type="AssertionError",
        message="Lists differ",
        line=7,
        expected=repr(expected),
        got=repr(got),
        diff="- a unified diff\n+ of both lists",
        **extra,
    )


def test_long_values_are_shown_around_their_first_difference() -> None:
    expected = [*_WORDS[:20], "yaba daba-", "doo", *_WORDS[20:]]
    got = [*_WORDS[:20], "yaba", "daba-", "doo", *_WORDS[20:]]  # not item by item
    row = _row(_lists_failure(expected, got))
    # the start both share is elided, the differing items are shown, the diff is not needed
    assert row["expected"].startswith("…")
    assert row["got"].startswith("…")
    assert "'yaba daba-'" in row["expected"]
    assert "'yaba', 'daba-'" in row["got"]
    assert "word0" not in row["expected"] + row["got"]
    assert max(len(row["expected"]), len(row["got"])) < len(repr(expected)) // 4
    assert "diff" not in row
    debug = _row(_lists_failure(expected, got), "debug")
    assert "'yaba daba-'" in debug["expected"]
    assert "word0" in debug["expected"]
    assert debug["diff"].startswith("- a unified diff")  # the richer view keeps the diff


def test_a_difference_the_runner_cut_away_keeps_the_diff() -> None:
    # unittest shortens both values; here they differ only inside its "[N chars]" marks
    failure = Failure(
        file="tests/test_wrap.py",
        test="test_wrap",
        error_type="AssertionError",
        expected="['Hello there,', 'how are you', 'this fine', [27 chars]it!']",
        got="['Hello there,', 'how are you', 'this fine', [30 chars]it!']",
        diff="- ['Hello there, how']\n+ ['Hello there,', 'how']",
    )
    assert _row(failure)["diff"].startswith("- ['Hello there, how']")


def test_an_assertion_helper_in_the_test_file_is_not_repeated_as_origin() -> None:
    helper = _lists_failure(["a"], ["b"], origin="tests/test_wrap.py:3")
    assert "origin" not in _row(helper)  # L already points into the test file
    assert _row(helper, "debug")["origin"] == "tests/test_wrap.py:3"
    elsewhere = _lists_failure(["a"], ["b"], origin="src/wrap.py:40")
    assert _row(elsewhere)["origin"] == "src/wrap.py:40"
    crash = Failure(
        file="tests/test_wrap.py",
        test="test_wrap",
        error_type="KeyError",
        message="'de'",
        origin="tests/test_wrap.py:3",
    )
    assert _row(crash)["origin"] == "tests/test_wrap.py:3"  # not a comparison: the cause


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(st.sampled_from(_WORDS), min_size=1, max_size=30),
    at=st.integers(0, 29),
    changed=st.text("abc -'\"\\\n", min_size=1, max_size=12),
)
def test_the_shown_values_always_differ_and_stay_short(
    words: list[str], at: int, changed: str
) -> None:
    at = min(at, len(words) - 1)
    got = [*words[:at], changed, *words[at + 1 :]]
    row = _row(_lists_failure(words, got))
    assert row["expected"] != row["got"]  # the window shows the difference itself
    for value in (row["expected"], row["got"]):
        assert len(str(value)) <= 42  # the window and its two "…" marks
