"""``agentout records`` with integers Python will not read (more than 4,300 digits) and
numbers past a float: ``--sort`` orders them by value with the rest (it failed the whole
set: "Exceeds the limit (4300 digits)"), and a ``--filter`` that cannot compare one
counts that record as not matching and names it, file and line (it raised a TypeError
traceback); the good records are delivered either way."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.cli.main import cli
from agentout.formats.records import parse
from agentout.records.values import NumberText
from agentout.sources.collection import rank

HUGE = "9" * 5000


def _records(tmp_path: Path) -> Path:
    path = tmp_path / "big.jsonl"
    lines = [
        '{"id": "a", "n": 1}',
        '{"id": "b", "n": ' + HUGE + "}",
        '{"id": "c", "n": 7}',
        '{"id": "d", "n": -' + HUGE + "}",
        '{"id": "e", "n": 1e999}',
        '{"id": "f", "n": 8' + "0" * 4999 + "}",
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _ids(*args: str) -> tuple[int, list[str], str]:
    result = CliRunner().invoke(cli, ["records", *args, "--mode", "verbose"])
    ids = [fields["id"] for kind, fields in parse(result.stdout) if kind == "R"]
    return result.exit_code, ids, result.stderr


def test_sort_orders_huge_numbers_by_value(tmp_path: Path) -> None:
    path = str(_records(tmp_path))
    status, ids, err = _ids(path, "--sort", "n")
    assert (status, err) == (0, "")
    assert ids == ["d", "a", "c", "e", "f", "b"]  # 1e999 < 8e4999 < 10**5000 - 1
    status, ids, err = _ids(path, "--sort", "-n")
    assert (status, err) == (0, "")
    assert ids == ["b", "f", "e", "c", "a", "d"]


def test_a_filter_that_cannot_compare_names_the_value_and_keeps_the_rest(tmp_path: Path) -> None:
    path = _records(tmp_path)
    status, ids, err = _ids(str(path), "--filter", "n > `5`")
    assert status == 0
    assert ids == ["c"]  # a and the rest compare; the huge ones are named, not matched
    assert "Traceback" not in err
    assert err.count("\n") == 1
    assert err.startswith("agentout: --filter failed on 4 record(s), counted as not matching")
    assert f"(first: {path}:2: n: 999999999999…999999999999 (5000 characters)" in err


def test_ids_with_long_digit_runs_sort_naturally(tmp_path: Path) -> None:
    path = tmp_path / "ids.jsonl"
    ids = ["x" + "1" * 5000, "x2", "x" + "0" * 6000 + "3", "x10"]
    path.write_text("".join(json.dumps({"id": i, "v": 1}) + "\n" for i in ids))
    status, found, err = _ids(str(path), "--sort", "v")
    assert (status, err) == (0, "")
    assert found == ["x2", "x" + "0" * 6000 + "3", "x10", "x" + "1" * 5000]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-(10**60), 10**60) | st.integers(), min_size=2, max_size=12))
def test_numbers_as_text_sort_as_their_values(values: list[int]) -> None:
    """Each value once as a Python int and once as NumberText (how a number too long for
    Python is kept): both order as the integers do."""
    as_text = [NumberText(str(v)) for v in values]
    by_key = sorted(as_text, key=rank._value_key)
    assert [int(v) for v in by_key] == sorted(values)
    mixed = [NumberText(str(v)) if i % 2 else v for i, v in enumerate(values)]
    assert [int(v) for v in sorted(mixed, key=rank._value_key)] == sorted(values)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.from_regex(r"[a-z]{0,2}[0-9]{1,30}[a-z]{0,2}", fullmatch=True), min_size=2))
def test_natural_order_is_the_order_of_the_numbers_in_ids(texts: list[str]) -> None:
    def expected(text: str) -> tuple[object, ...]:
        import re

        parts = re.split(r"(\d+)", text)
        return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))

    assert sorted(texts, key=rank._natural) == sorted(texts, key=expected)
