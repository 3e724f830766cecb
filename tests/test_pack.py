"""Budget claims of pack(), property-tested: never over budget (but the flagged case),
whole records only, in order, as many as fit, exact counts, identical bytes every run."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout import Record, Result, count, pack
from agentout.formats import get_format
from agentout.formats._json import dumps
from agentout.formats.records import parse
from agentout.pack import _Packer
from agentout.tokens import get_tokenizer

FORMATS = ["records", "json"]

_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
    max_size=60,
)
_scalar = st.one_of(st.integers(-(10**6), 10**6), st.booleans(), _text, st.none())
_fields = st.dictionaries(
    st.text(alphabet="abcdefghij_ -", min_size=1, max_size=6), _scalar, min_size=1, max_size=4
)


@st.composite
def records(draw: Any) -> Record:
    views = draw(st.lists(_fields, min_size=1, max_size=3))
    # later views are fuller: each adds the previous view's fields
    grown: list[dict[str, Any]] = []
    for view in views:
        grown.append({**(grown[-1] if grown else {}), **view})
    return Record.of(*grown, forced=draw(st.booleans()) and draw(st.booleans()))


results = st.builds(
    lambda recs, mode: Result.of(recs, header={"mode": mode}),
    st.lists(records(), max_size=12),
    st.sampled_from(["fit", "test"]),
)

property_settings = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _record_lines(packed_text: str, fmt: str) -> list[str]:
    if fmt == "records":
        return [line for line in packed_text.splitlines()[1:] if line]
    body = json.loads(packed_text)
    return [dumps(r) for r in body["records"]]


def _view_index(record: Record, view: Any) -> int:
    return next(i for i, candidate in enumerate(record.views) if candidate is view)


def _expected_line(record: Record, view_index: int, fmt: str) -> str:
    return get_format(fmt).fragment(record, record.views[view_index]).rstrip(",\n")


@pytest.mark.parametrize("fmt", FORMATS)
@property_settings
@given(
    result=results,
    max_tokens=st.one_of(st.none(), st.integers(0, 400)),
    max_chars=st.one_of(st.none(), st.integers(0, 1500)),
)
def test_budget_whole_records_exact_counts(
    fmt: str, result: Result, max_tokens: int | None, max_chars: int | None
) -> None:
    packed = pack(result, format=fmt, max_tokens=max_tokens, max_chars=max_chars)
    stats = packed.stats

    # the reported count is the exact count of the whole emitted text
    assert stats.tokens == count(packed.text)
    # never over budget, except the flagged case: the barest envelope alone passes it
    if not stats.over_budget:
        assert max_tokens is None or stats.tokens <= max_tokens
        assert max_chars is None or len(packed.text) <= max_chars
    else:
        assert stats.included == 0
    assert stats.included + stats.omitted == stats.total
    assert stats.truncated == (stats.omitted > 0 or stats.reduced > 0)

    # whole records only: every emitted record is exactly one view of one record,
    # forced records always present, non-forced ones a prefix of the input order
    chosen = packed.document.records
    assert _record_lines(packed.text, fmt)[: len(chosen)] == [
        _expected_line(r, _view_index(r, v), fmt) for r, v in chosen
    ]
    forced = [r for r in result.records if r.forced]
    free = [r for r in result.records if not r.forced]
    assert [r for r, _ in chosen if r.forced] == forced
    assert [r for r, _ in chosen if not r.forced] == free[: stats.included]

    # deterministic
    assert pack(result, format=fmt, max_tokens=max_tokens, max_chars=max_chars).text == packed.text


@pytest.mark.parametrize("fmt", FORMATS)
@property_settings
@given(result=results, max_tokens=st.integers(0, 400))
def test_as_many_records_as_fit(fmt: str, result: Result, max_tokens: int) -> None:
    """When records are left out, the next one would not have fit even at its tersest view."""
    packed = pack(result, format=fmt, max_tokens=max_tokens)
    stats = packed.stats
    if stats.omitted == 0 or stats.over_budget:
        return
    # re-render the same choice plus the next record at its tersest view
    packer = _Packer(result, get_format(fmt), get_tokenizer(None), max_tokens, None, None, None)
    views = {id(view): index for r in result.records for index, view in enumerate(r.views)}
    packer.chosen = {}
    for index, record in enumerate(result.records):
        for chosen_record, view in packed.document.records:
            if chosen_record is record:
                packer.chosen[index] = views[id(view)]
    free = [i for i, r in enumerate(result.records) if not r.forced]
    for envelope in range(3):  # the envelope pack settled on renders the same text
        packer.envelope = envelope
        if packer.render()[0] == packed.text:
            break
    else:
        raise AssertionError("no envelope renders what pack gave")
    if stats.included == 0 and envelope < 2:
        packer.envelope = 2  # with no record shown, even the barest envelope had no room
    packer.chosen[free[stats.included]] = 0
    _, document = packer.render()
    assert document.stats.tokens > max_tokens


def test_a_budget_is_a_ceiling_no_record_goes_over_it() -> None:
    big = Record.of({"id": 1, "msg": "x " * 50}, {"id": 1, "msg": "x " * 500})
    packed = pack(Result.of([big, big], {"mode": "fit", "source": "big.json"}), max_tokens=40)
    assert not packed.stats.over_budget
    assert packed.stats.included == 0
    assert packed.stats.tokens <= 40
    assert packed.text == "H agentout=1 mode=fit source=big.json total=2 included=0 omitted=2 " + (
        f"truncated=true tokens={packed.stats.tokens}\n"
    )


def test_at_small_budgets_the_optional_fields_go_then_the_reference() -> None:
    record = Record.of({"id": 1, "name": "first record"})
    result = Result.of(
        [record, record],
        {"mode": "fit", "source": "a/long/path/to/the/input/file.json", "ref": "0123456789abcdef"},
        {"more": "agentout show 0123456789abcdef --records 2:"},
    )
    seen = set()
    for budget in range(10, 140):
        packed = pack(result, max_tokens=budget)
        assert packed.stats.tokens <= budget or packed.stats.over_budget
        source, ref = "source=" in packed.text, "ref=" in packed.text
        assert not source or ref, "the optional fields go before the reference"
        assert not source or not packed.stats.lean
        seen.add((source, ref, packed.stats.included > 0))
    assert (True, True, True) in seen  # the whole envelope
    assert (False, True, True) in seen  # lean: a record shown, the reference kept
    assert (False, False, True) in seen  # bare: a record shown rather than the reference


def test_only_an_envelope_that_cannot_fit_at_its_barest_is_over_budget() -> None:
    packed = pack(Result.of([Record.of({"id": 1})], {"exit": 3}), max_tokens=5)
    assert packed.stats.over_budget
    assert packed.stats.included == 0
    assert "exit=3" in packed.text  # a fact stays whatever the size
    assert "over_budget=true" in packed.text.splitlines()[0]


def test_presets_agent_and_verbose() -> None:
    recs = [Record.of({"id": i, "body": "word " * 30}) for i in range(20)]
    agent = pack(Result.of(recs), preset="agent")
    assert agent.stats.included <= 3
    assert agent.stats.tokens <= 500
    verbose = pack(Result.of(recs), preset="verbose")
    assert verbose.stats.included == 10
    assert verbose.stats.omitted == 10
    # explicit settings beat the preset's
    assert (
        pack(Result.of(recs), preset="agent", max_records=5, max_tokens=10_000).stats.included == 5
    )


def test_richest_view_within_level() -> None:
    rec = Record.of({"id": 1}, {"id": 1, "a": 2}, {"id": 1, "a": 2, "b": 3})
    assert pack(Result.of([rec])).document.records[0][1] == rec.views[2]
    assert pack(Result.of([rec]), level=1).document.records[0][1] == rec.views[1]
    # a level below the fullest view is a choice, not a truncation
    assert not pack(Result.of([rec]), level=1).stats.truncated


def test_coverage_before_detail() -> None:
    """A tight budget shows more records tersely rather than fewer in full."""
    recs = [Record.of({"id": i}, {"id": i, "detail": "lorem ipsum " * 40}) for i in range(10)]
    packed = pack(Result.of(recs), max_tokens=120)
    assert packed.stats.included >= 5
    assert packed.stats.reduced >= 1


def test_invalid_arguments() -> None:
    with pytest.raises(ValueError, match="unknown preset"):
        pack(Result.of([]), preset="loud")
    with pytest.raises(ValueError, match="max_tokens must be >= 0"):
        pack(Result.of([]), max_tokens=-1)


def test_empty_result_still_has_header() -> None:
    packed = pack(Result.of([], header={"mode": "fit"}), max_tokens=100)
    (kind, fields), *_ = parse(packed.text)
    assert kind == "H"
    assert fields["total"] == 0
    assert fields["tokens"] == count(packed.text)


class _Words:
    """A tokenizer where the header's number is not a token of its own (it joins a word)."""

    name = "words"

    def count(self, text: str) -> int:
        return len(text.split())


class _NoFixedPoint:
    """Counts one more than the largest number in the text: no count can describe itself."""

    name = "no-fixed-point"

    def count(self, text: str) -> int:
        return 1 + max((int(n) for n in re.findall(r"\d+", text)), default=0)


@pytest.mark.parametrize("tokenizer", ["chars4", "cl100k_base", _Words()])
@settings(max_examples=60, deadline=None)
@given(result=results, max_tokens=st.integers(0, 300))
def test_exact_count_with_any_tokenizer(tokenizer: Any, result: Result, max_tokens: int) -> None:
    packed = pack(result, max_tokens=max_tokens, tokenizer=tokenizer)
    counter = get_tokenizer(tokenizer)
    assert packed.stats.tokens == counter.count(packed.text)
    assert packed.stats.tokenizer == counter.name
    if not packed.stats.over_budget:
        assert packed.stats.tokens <= max_tokens


def test_tokenizer_without_a_self_consistent_count_is_refused_clearly() -> None:
    from agentout.errors import AgentoutError

    with pytest.raises(AgentoutError, match="no-fixed-point: no number n"):
        pack(Result.of([Record.of({"a": 1})]), tokenizer=_NoFixedPoint())


def test_auto_skips_a_candidate_that_cannot_encode_the_data() -> None:
    deep: Any = "leaf"
    for _ in range(500):
        deep = {"d": deep}
    result = Result.of([Record.of({"id": 1, "deep": deep})])
    with pytest.raises(ValueError, match="nested too deeply"):
        pack(result, format="toon")
    packed = pack(result, format="auto")
    assert packed.format in {"auto:json", "auto:records"}
    assert packed.stats.included == 1
