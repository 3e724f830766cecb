from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest

from agentout import Record, Result, pack
from agentout.formats import get_format
from agentout.formats.csv import is_flat_uniform, read, read_cell
from agentout.formats.records import parse


@pytest.mark.parametrize(
    ("records", "flat"),
    [
        ([{"a": 1, "b": "x"}, {"a": 2, "b": "y"}], True),
        ([{"a": 1, "b": "x"}, {"b": "y", "a": 2}], False),  # columns in another order
        ([{"a": 1.5, "b": True}], True),
        ([{"a": 1}, {"a": 1, "b": 2}], False),  # a key more
        ([{"a": 1}, {"b": 1}], False),
        ([{"a": [1]}], False),  # a list is not a scalar
        ([{"a": {"b": 1}}], False),
        ([{"a": None}], True),  # null is the cell null
        ([], False),  # nothing to tabulate
        ([{}], False),
    ],
)
def test_is_flat_uniform(records: list[dict[str, Any]], flat: bool) -> None:
    assert is_flat_uniform(records) is flat


def _rows(text: str, summary: bool = False) -> tuple[list[str], list[list[str]]]:
    """As docs/formats.md says to read it: the first line and, with a summary, the last
    line are ``#`` lines; everything between is one RFC 4180 table."""
    lines = text.splitlines(keepends=True)
    comments, table = [lines[0]], lines[1:]
    if summary:
        comments.append(table.pop())
    assert all(c.startswith("# ") for c in comments)
    return comments, list(csv.reader(io.StringIO("".join(table))))


def test_metadata_table_and_summary() -> None:
    rows = [
        {"id": 1, "name": "Ada, Countess", "ok": True},
        {"id": 2, "name": 'say "hi"', "ok": False},
    ]
    result = Result.of([Record.of(r) for r in rows], header={"mode": "fit"}, summary={"rows": 2})
    packed = pack(result, format="csv")
    first, *_ = packed.text.splitlines()
    # The metadata line is the records format's header line, "#" for "H".
    [(kind, meta)] = parse("H" + first[1:])
    assert kind == "H"
    assert meta["agentout"] == 1
    assert meta["mode"] == "fit"
    assert meta["tokens"] == packed.stats.tokens
    assert (meta["total"], meta["included"]) == (2, 2)
    comments, table = _rows(packed.text, summary=True)
    assert comments[-1] == "# rows=2\n"
    assert table == [
        ["id", "name", "ok"],
        ["1", "Ada, Countess", "true"],
        ["2", 'say "hi"', "false"],
    ]
    assert '"Ada, Countess"' in packed.text  # RFC 4180 quoting
    assert '"say ""hi"""' in packed.text


def test_non_flat_records_keep_everything_as_json_cells() -> None:
    records = [
        Record.of({"id": 1, "tags": ["a", "b"], "meta": {"k": [1, None]}}),
        Record.of({"id": 2, "extra": "only here", "empty": ""}),
        Record.of({"status": "done"}, kind="S", forced=True),
    ]
    packed = pack(Result.of(records), format="csv")
    _, table = _rows(packed.text)
    header, *body = table
    assert header == ["id", "tags", "meta", "extra", "empty", "_kind", "status"]
    cells = [dict(zip(header, row, strict=True)) for row in body]
    assert json.loads(cells[0]["tags"]) == ["a", "b"]
    assert json.loads(cells[0]["meta"]) == {"k": [1, None]}
    assert cells[1]["extra"] == "only here"
    assert cells[1]["empty"] == '""'  # the empty string, not a missing field
    assert cells[1]["tags"] == ""  # a field the record does not have
    assert cells[2]["_kind"] == "S"
    assert cells[2]["status"] == "done"
    assert read(packed.text) == [
        {"id": 1, "tags": ["a", "b"], "meta": {"k": [1, None]}},
        {"id": 2, "extra": "only here", "empty": ""},
        {"_kind": "S", "status": "done"},
    ]


def test_a_row_never_passes_for_a_comment() -> None:
    packed = pack(Result.of([Record.of({"tag": "#1"}), Record.of({"tag": "x"})]), format="csv")
    assert '\n"#1"\n' in packed.text  # quoted, so no line of the table starts with "#"
    assert [line for line in packed.text.splitlines() if line.startswith("#")] == [
        packed.text.splitlines()[0]
    ]
    _, table = _rows(packed.text)
    assert table == [["tag"], ["#1"], ["x"]]


def test_line_breaks_are_escaped_so_a_row_is_one_line() -> None:
    packed = pack(Result.of([Record.of({"log": "a\nb\r\nc", "n": 1})]), format="csv")
    _, table = _rows(packed.text)
    assert table == [["log", "n"], ['"a\\nb\\r\\nc"', "1"]]
    assert len(packed.text.splitlines()) == 3
    assert read(packed.text) == [{"log": "a\nb\r\nc", "n": 1}]


def test_fragment_is_the_row() -> None:
    fmt = get_format("csv")
    packed = pack(Result.of([Record.of({"a": 1, "b": "x y"})]), format=fmt)
    record, view = packed.document.records[0]
    assert fmt.fragment(record, view) == "1,x y\n"
    assert fmt.fragment(record, view) in packed.text


def test_a_bare_carriage_return_and_terminal_controls_are_escaped() -> None:
    value = "x\ry\x07\x1b]52;c;ZXZpbA==\x07\u202e"  # CR, BEL, an OSC 52 clipboard write
    packed = pack(Result.of([Record.of({"a": value, "b": 1})]), format="csv")
    assert not any(c in packed.text for c in "\r\x07\x1b\u202e")
    assert read(packed.text) == [{"a": value, "b": 1}]


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ("1", '"1"'),
        (1, "1"),
        ("true", '"true"'),
        (True, "true"),
        ("null", '"null"'),
        (None, "null"),
        ("", '""'),
        ("[1]", '"[1]"'),
        ('"q"', '"\\"q\\""'),
        ("plain text, with comma", "plain text, with comma"),
        ("1.5x", "1.5x"),
    ],
)
def test_a_cell_reads_back_as_the_value_it_was(value: Any, cell: str) -> None:
    packed = pack(Result.of([Record.of({"v": value})]), format="csv")
    _, table = _rows(packed.text)
    assert table[1] == [cell]
    assert read_cell(cell) == value
    assert read(packed.text) == [{"v": value}]
