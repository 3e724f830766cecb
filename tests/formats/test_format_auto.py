from __future__ import annotations

import json
from pathlib import Path

import pytest
from format_strategies import budgets, results
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentout import Record, Result, pack
from agentout.formats import get_format
from agentout.formats.auto import AutoFormat
from agentout.tokens import count

AUTO = get_format("auto")
assert isinstance(AUTO, AutoFormat)

REPOS = Path(__file__).parents[3] / "shared" / "data" / "github-repos.json"


def _names(result: Result) -> list[str]:
    return [c.name for c in AUTO.candidates(result)]


def test_candidates_in_a_fixed_order_csv_only_for_flat_uniform() -> None:
    flat = Result.of([Record.of({"a": 1, "b": "x"}), Record.of({"a": 2, "b": None})])
    assert _names(flat) == ["json", "toon", "toon-tab", "csv", "records"]
    # A table has one order of columns: records that order their keys otherwise do not
    # read back in their own order from it.
    reordered = Result.of([Record.of({"a": 1, "b": "x"}), Record.of({"b": "y", "a": 2})])
    assert _names(reordered) == ["json", "toon", "toon-tab", "records"]
    nested = Result.of([Record.of({"a": 1, "b": [1, 2]})])
    assert _names(nested) == ["json", "toon", "toon-tab", "records"]
    ragged = Result.of([Record.of({"a": 1}), Record.of({"a": 2, "c": 3})])
    assert _names(ragged) == ["json", "toon", "toon-tab", "records"]
    # A terser view with fewer keys leaves empty cells, which read back as the fields
    # it lacks: CSV stays.
    views = Result.of([Record.of({"a": 1}, {"a": 1, "b": 2}), Record.of({"a": 2, "b": 3})])
    assert _names(views) == ["json", "toon", "toon-tab", "csv", "records"]
    # But a terse view with a nested value would need a JSON cell: no CSV.
    nested_terse = Result.of([Record.of({"a": [1]}, {"a": 1, "b": 2})])
    assert _names(nested_terse) == ["json", "toon", "toon-tab", "records"]
    # Nor when the fullest views differ.
    full_ragged = Result.of([Record.of({"a": 1}, {"a": 1, "b": 2}), Record.of({"a": 2})])
    assert _names(full_ragged) == ["json", "toon", "toon-tab", "records"]
    kinds = Result.of([Record.of({"a": 1}), Record.of({"a": 2}, kind="E")])
    assert _names(kinds) == ["json", "toon", "toon-tab", "records"]
    assert _names(Result.of([])) == ["json", "toon", "toon-tab", "records"]


def test_auto_names_its_choice_and_emits_its_text() -> None:
    flat = Result.of([Record.of({"id": i, "name": f"n{i}"}) for i in range(20)])
    packed = pack(flat, format="auto", max_tokens=200)
    name = packed.format.removeprefix("auto:")
    assert packed.format.startswith("auto:")
    chosen = next(c for c in AUTO.candidates(flat) if c.name == name)
    assert pack(flat, format=chosen, max_tokens=200).text == packed.text


@pytest.mark.skipif(not REPOS.exists(), reason="needs ../shared/data/github-repos.json")
def test_github_repos_auto_is_well_below_pretty_json() -> None:
    rows = json.loads(REPOS.read_text(encoding="utf-8"))
    result = Result.of([Record.of(r) for r in rows])
    packed = pack(result, format="auto")
    assert packed.stats.included == len(rows)
    assert packed.format == "auto:csv"
    pretty_tokens = count(json.dumps(rows, indent=2, ensure_ascii=False))
    assert packed.stats.tokens <= 0.6 * pretty_tokens
    for fmt in AUTO.candidates(result):
        assert packed.stats.tokens <= pack(result, format=fmt).stats.tokens


def _check_never_larger(result: Result, max_tokens: int | None, max_records: int | None) -> None:
    auto = pack(result, format="auto", max_tokens=max_tokens, max_records=max_records)
    for fmt in AUTO.candidates(result):
        try:
            other = pack(result, format=fmt, max_tokens=max_tokens, max_records=max_records)
        except ValueError:
            continue  # a candidate that refuses the result (TOON, keys in two orders): so does auto
        assert auto.stats.included >= other.stats.included
        same = (other.stats.included, other.stats.reduced) == (
            auto.stats.included,
            auto.stats.reduced,
        )
        if same:
            assert auto.stats.tokens <= other.stats.tokens, (fmt.name, auto.format)


@settings(max_examples=30, deadline=None)
@given(result=results(flat=True, max_records=12), max_tokens=budgets)
def test_flat_auto_never_larger_than_any_candidate(result: Result, max_tokens: int | None) -> None:
    assert "csv" in _names(result) or not result.records
    _check_never_larger(result, max_tokens, None)


@settings(max_examples=30, deadline=None)
@given(result=results(flat=True, max_records=12))
def test_without_a_budget_auto_is_the_smallest_candidate(result: Result) -> None:
    # Every record at its fullest view in every candidate: auto is simply the smallest.
    auto = pack(result, format="auto")
    sizes = [pack(result, format=fmt).stats.tokens for fmt in AUTO.candidates(result)]
    assert auto.stats.tokens == min(sizes)


@settings(max_examples=30, deadline=None)
@given(result=results(), max_tokens=budgets, max_records=st.none() | st.integers(0, 5))
@example(  # the same keys in two orders: the TOON candidates refuse, auto takes another
    result=Result.of(
        [
            Record.of({"id": "r0", "0": None, "00": None}),
            Record.of({"id": "r1", "00": None, "0": None}),
        ]
    ),
    max_tokens=None,
    max_records=None,
)
def test_auto_never_larger_than_any_candidate(
    result: Result, max_tokens: int | None, max_records: int | None
) -> None:
    # With several views, pack prefers fewer shortened records before fewer tokens.
    _check_never_larger(result, max_tokens, max_records)
