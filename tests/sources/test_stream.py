"""``loads`` and ``loads_line``: a whole JSON value read by fit's rules, in fit's words."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.errors import InputError
from agentout.read.stream import MAX_DEPTH, JsonParser, Reader, loads, loads_line

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


def _parser_outcome(text: str) -> Any:
    """What fit's streaming parser makes of ``text`` as one value: the value or the error."""
    parser = JsonParser(Reader(iter([text]), "in", 16))
    try:
        return list(parser.values(single=True))
    except InputError as exc:
        return str(exc)


def _loads_outcome(text: str) -> Any:
    try:
        return [loads(text, "in")]
    except InputError as exc:
        return str(exc)


@settings(max_examples=100, deadline=None)
@given(JSON, st.sampled_from([None, 1, "\t"]), st.sampled_from(["", " ", "\n "]))
def test_any_json_value_reads_back_whatever_the_whitespace(
    value: Any, indent: int | str | None, around: str
) -> None:
    text = around + json.dumps(value, indent=indent) + around
    assert loads(text, "in") == value
    assert _loads_outcome(text) == _parser_outcome(text)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='[]{}":,0123456789.eE+-NaInfity tru\n\\'))
def test_any_text_is_a_value_or_the_same_input_error_as_fit_gives(text: str) -> None:
    if not text.strip():
        return  # fit's parser has no value to read there; loads' callers skip blank lines
    outcome = _loads_outcome(text)
    assert isinstance(outcome, (list, str))  # never another exception
    parsed = _parser_outcome(text)
    if isinstance(outcome, list) and isinstance(parsed, list):
        assert outcome == parsed
    elif isinstance(outcome, str) and "extra data" not in outcome:
        # fit reads on past the first value ("1 2" is two); a refusal is the same refusal
        assert outcome == parsed


def test_errors_are_located_from_the_line_the_text_starts_on() -> None:
    with pytest.raises(InputError) as caught:
        loads('{"a": 1,\n "b": NaN}', "f.json", line=10)
    assert str(caught.value) == "f.json:11:7: NaN is not valid JSON"
    with pytest.raises(InputError) as caught:
        loads("\n\n  " + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), "f.json")
    assert str(caught.value) == f"f.json:3:3: JSON nested deeper than {MAX_DEPTH} levels"
    with pytest.raises(InputError) as caught:
        loads("1 2", "f.jsonl", line=4)
    assert str(caught.value) == "f.jsonl:4:3: extra data (JSON)"


def test_nesting_exactly_at_the_limit_is_read() -> None:
    deepest = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    value = loads(deepest, "in")
    for _ in range(MAX_DEPTH - 1):
        (value,) = value
    assert value == []


def test_a_line_of_bytes_names_invalid_utf8_by_its_file_offset() -> None:
    assert loads_line('{"a": "é"}'.encode(), "f.jsonl", 3, 100) == {"a": "é"}
    with pytest.raises(InputError) as caught:
        loads_line(b'{"a": "caf\xe9"}', "f.jsonl", 3, 100)
    assert str(caught.value) == (
        "f.jsonl:3: invalid UTF-8 at byte 110 (0xe9); agentout reads UTF-8 text"
    )
