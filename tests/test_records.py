from __future__ import annotations

import pytest

from agentout import Record, Result
from agentout.records import is_empty


def test_record_needs_a_view() -> None:
    with pytest.raises(ValueError, match="at least one view"):
        Record(views=())


@pytest.mark.parametrize("kind", ["", "r", "RR", "1", "H"])
def test_record_kind_is_one_capital_letter_not_header(kind: str) -> None:
    with pytest.raises(ValueError, match="kind"):
        Record.of({"a": 1}, kind=kind)


def test_tersest_and_fullest() -> None:
    rec = Record.of({"id": 1}, {"id": 1, "body": "x"})
    assert rec.tersest == {"id": 1}
    assert rec.fullest == {"id": 1, "body": "x"}


def test_result_of_copies_inputs() -> None:
    header = {"mode": "fit"}
    result = Result.of([Record.of({"a": 1})], header=header)
    header["mode"] = "changed"
    assert result.header == {"mode": "fit"}
    assert len(result.records) == 1


@pytest.mark.parametrize(
    ("value", "empty"),
    [
        (None, True),
        ("", True),
        ([], True),
        ({}, True),
        ((), True),
        (0, False),
        (False, False),
        (" ", False),
        ([0], False),
    ],
)
def test_is_empty(value: object, empty: bool) -> None:
    assert is_empty(value) is empty
