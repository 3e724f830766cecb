"""The structured-data source: detection, views, streaming, and every kind of bad input."""

from __future__ import annotations

import io
import itertools
import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.errors import InputError
from agentout.read import text as _text
from agentout.read.data import (
    INDEX_CHARS,
    MAX_DEPTH,
    TERSE_CHARS,
    _cut,
    _small,
    data_records,
    read_data,
)
from agentout.records import Record, Result
from agentout.records.values import Cut, NumberText
from agentout.tokens import Chars4
from agentout.tokens.truncate import truncate_string

EXAMPLES = Path(__file__).parents[2] / "examples" / "data"


def read(data: bytes | str, **options: Any) -> Result:
    raw = data.encode() if isinstance(data, str) else data
    return read_data(io.BytesIO(raw), name="in.json", **options)


def fullest(result: Result) -> list[Any]:
    return [dict(record.fullest) for record in result.records]


def error(data: bytes | str, **options: Any) -> str:
    with pytest.raises(InputError) as caught:
        read(data, **options)
    return str(caught.value)


# -- what the input is -----------------------------------------------------------------


def test_a_json_array_gives_one_record_per_element() -> None:
    result = read('[{"id": 1}, {"id": 2}, 3, "four", [5]]')
    assert result.header == {"mode": "fit", "source": "in.json", "input": "json"}
    assert fullest(result) == [
        {"id": 1},
        {"id": 2},
        {"value": 3},
        {"value": "four"},
        {"value": [5]},
    ]


def test_an_object_gives_its_longest_array_and_its_scalars_go_in_the_header() -> None:
    data = {
        "total_count": 3,
        "warnings": [],
        "items": [{"id": 1}, {"id": 2}, {"id": 3}],
        "page": {"next": None},
        "total": 99,
        "incomplete": False,
    }
    result = read(json.dumps(data, indent=2))
    assert fullest(result) == data["items"]
    assert result.header == {
        "mode": "fit",
        "source": "in.json",
        "input": "json",
        "array": "items",
        "total_count": 3,
        "top.total": 99,  # "total" is pack's own header field: kept apart
        "incomplete": False,
        "other_keys": ["warnings", "page"],
    }


def test_an_object_without_arrays_is_one_record() -> None:
    result = read('{"name": "disk", "used": 0.93}')
    assert fullest(result) == [{"name": "disk", "used": 0.93}]
    assert result.header["input"] == "json"


def test_an_object_whose_array_is_empty_has_no_records() -> None:
    result = read('{"items": [], "next": "abc"}')
    assert result.records == ()
    assert result.header["array"] == "items"
    assert result.header["next"] == "abc"


def test_of_two_equally_long_arrays_the_first_is_the_records() -> None:
    assert read('{"a": [{"x": 1}, {"x": 2}], "b": [{"y": 3}, {"y": 4}]}').header["array"] == "a"
    # arrays of other values are fields: the object is one record
    assert "array" not in read('{"a": [1, 2], "b": [3, 4]}').header


def test_jsonl_and_concatenated_pretty_values_give_one_record_each() -> None:
    lines = '{"id": 1, "tags": ["a"]}\n\n{"id": 2}\n[3]\n'
    assert fullest(read(lines)) == [{"id": 1, "tags": ["a"]}, {"id": 2}, {"value": [3]}]
    assert read(lines).header["input"] == "jsonl"
    jq_style = '{\n  "id": 1\n}\n{\n  "id": 2\n}\n'
    assert fullest(read(jq_style)) == [{"id": 1}, {"id": 2}]


def test_text_gives_one_record_per_non_blank_line_with_its_number() -> None:
    result = read("  indented first\r\n\nsecond\n   \nthird")
    assert result.header["input"] == "text"
    assert fullest(result) == [
        {"n": 1, "line": "  indented first"},
        {"n": 3, "line": "second"},
        {"n": 5, "line": "third"},
    ]


@pytest.mark.parametrize(
    "first_line",
    ["[2025-03-03 08:00:00] INFO started", "[INFO] 2025-03-03 started", "[main] ready"],
)
def test_a_log_whose_lines_start_with_brackets_is_text(first_line: str) -> None:
    result = read(f"{first_line}\n[WARN] second\n")
    assert result.header["input"] == "text"
    assert fullest(result)[0] == {"n": 1, "line": first_line}


def test_input_format_overrides_detection() -> None:
    assert fullest(read("[1]\n[2]\n", input_format="jsonl")) == [{"value": [1]}, {"value": [2]}]
    assert fullest(read('{"a": 1}\n', input_format="text")) == [{"n": 1, "line": '{"a": 1}'}]
    assert fullest(read('"just a string"', input_format="json")) == [{"value": "just a string"}]
    assert error('{"a": 1}\n{"a": 2}\n', input_format="json") == (
        "in.json:2:1: extra data after the JSON object (JSON)"
    )


def test_an_empty_array_is_no_records_not_an_error() -> None:
    assert read("[]").records == ()
    assert read("  [ ]  \n").header["input"] == "json"


def test_a_byte_order_mark_is_not_part_of_the_text() -> None:
    assert fullest(read(b"\xef\xbb\xbf[1]")) == [{"value": 1}]
    assert fullest(read(b"\xef\xbb\xbfhello")) == [{"n": 1, "line": "hello"}]


def test_a_path_is_read_and_named_as_given(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text('{"a": 1}\n{"a": 2}\n')
    result = read_data(str(path))
    assert result.header["source"] == str(path)
    assert fullest(result) == [{"a": 1}, {"a": 2}]


# -- views -----------------------------------------------------------------------------


def test_an_object_has_views_from_an_index_line_to_everything() -> None:
    long = "word " * 40
    steps = [{"at": i} for i in range(30)]
    obj = {
        "id": 7,
        "title": "Disk full",
        "note": long,
        "owner": "ops",
        "tags": ["a"],
        "steps": steps,
    }
    (record,) = read(json.dumps([obj])).records
    index, terse, middle, full = (dict(view) for view in record.views)
    # cut to 60 (index) or 80 characters with "...", then the rest counted
    cut60 = Cut("word " * 11 + "wo", 143)
    cut80 = Cut("word " * 15 + "wo", 123)
    # the first 3 scalars, and how many fields are left out (owner, tags, steps)
    assert index == {"id": 7, "title": "Disk full", "note": cut60, "_omitted": 3}
    terse_fields = {"id": 7, "title": "Disk full", "note": cut80, "owner": "ops"}
    assert terse == {**terse_fields, "_omitted": 2}
    # small nested values, in their place; the long list left out, and said so
    assert middle == {**terse_fields, "tags": ["a"], "_omitted": 1}
    assert full == obj


def test_a_nested_object_s_fields_left_out_are_counted_by_its_fields() -> None:
    obj = {"id": 1, "meta": {"owner": "x", "tags": list(range(40)), "zone": "eu"}}
    (record,) = read(json.dumps([obj])).records
    tersest = dict(record.views[0])
    assert tersest == {"id": 1, "meta.owner": "x", "meta.zone": "eu", "_omitted": 1}


def test_a_string_is_cut_only_when_the_cut_saves_more_than_its_marker() -> None:
    (record,) = read(json.dumps([{"s": "x" * 100}])).records
    assert [dict(view) for view in record.views] == [
        {"s": Cut("x" * 57, 43)},
        {"s": "x" * 100},  # 100 characters: within 20 of the 80 allowed, kept whole
    ]


def test_a_long_string_element_has_a_cut_view_and_the_whole_string() -> None:
    (record,) = read(json.dumps(["s" * 200, "short"])).records[:1]
    assert [dict(view) for view in record.views] == [
        {"value": Cut("s" * 77, 123)},
        {"value": "s" * 200},
    ]


def test_a_short_flat_object_has_one_view_and_a_nested_one_names_its_keys() -> None:
    (flat,) = read('[{"a": 1, "b": "x"}]').records
    assert flat.views == ({"a": 1, "b": "x"},)
    (nested,) = read(json.dumps([{"a": {"deep": list(range(50))}}])).records
    assert dict(nested.tersest) == {"_keys": ["a"]}
    assert len(nested.views) == 2


def test_a_long_line_has_a_cut_view_and_the_whole_line() -> None:
    line = "x" * 500
    (record,) = read(line + "\n").records
    assert dict(record.fullest) == {"n": 1, "line": line}
    assert record.tersest["n"] == 1
    assert record.tersest["line"] == "x" * 300 + "… (+100 chars) …" + "x" * 100


@settings(max_examples=200, deadline=None)
@given(
    text=st.text(st.characters(codec="utf-8"), min_size=60, max_size=300)
    | st.text(alphabet="ab \u0301\u200d\U0001f44d\U0001f3fd", min_size=60, max_size=300),
    limit=st.sampled_from([INDEX_CHARS, TERSE_CHARS, 2 * TERSE_CHARS]),
)
def test_a_cut_keeps_whole_characters_and_counts_the_rest(text: str, limit: int) -> None:
    shown = _cut(text, limit)
    if len(text) <= limit + 20:
        assert shown == text
        return
    assert isinstance(shown, Cut)
    kept = shown.kept
    assert shown == kept + "…"
    assert shown.more == len(text) - len(kept)
    # what truncate_string keeps within limit characters, "..." included
    assert kept + "..." == truncate_string(text, limit // 4, Chars4(), suffix="...")
    assert text.startswith(kept)
    assert len(kept) <= limit - 3


def test_a_huge_nested_value_is_judged_without_being_rendered() -> None:
    huge = [{"log": "x" * 20_000_000}, list(range(1_000_000))]
    tracemalloc.start()
    try:
        assert not _small(huge)
        assert not _small([[huge]])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100_000  # repr() would build a string of over 20 MB


def test_keep_builds_only_the_records_it_takes_and_counts_the_rest() -> None:
    offered: list[Any] = []

    def first_three(record: Record) -> bool:
        offered.append(record.fullest["id"])
        return len(offered) <= 3

    rows = "".join(json.dumps({"id": i}) + "\n" for i in range(100))
    result = read(rows, keep=first_three)
    assert [r.fullest["id"] for r in result.records] == [0, 1, 2]
    assert result.total == 100
    assert offered == [0, 1, 2, 3]  # offered until it refused: the rest were never built
    watched: list[Any] = []

    def until_seven(record: Record) -> bool:
        watched.append(record.fullest["id"])
        return record.fullest["id"] < 7

    again = read(rows, keep=lambda r: r.fullest["id"] < 5, dropped=until_seven)
    assert (len(again.records), again.total) == (5, 100)
    assert watched == [5, 6, 7]
    assert read(rows).total is None  # without keep, every record is there: no total


def test_text_counts_every_line_and_ranks_the_errors_first() -> None:
    lines = read("a\n\nb\nERROR: c failed\nd\n")
    assert fullest(lines) == [
        {"n": 1, "line": "a"},
        {"n": 3, "line": "b"},
        {"n": 4, "line": "ERROR: c failed"},
        {"n": 5, "line": "d"},
    ]
    assert lines.total == 5  # every line of the input, blank ones too
    assert lines.order is not None
    assert lines.records[lines.order[0]].fullest["n"] == 5  # how it ended, then the error
    assert lines.records[lines.order[1]].fullest["n"] == 4


# -- streaming -------------------------------------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(value=json_values)
def test_a_nested_value_is_small_when_its_repr_is(value: Any) -> None:
    if isinstance(value, (list, dict)):
        assert _small(value) == (len(value) <= 10 and len(repr(value)) <= TERSE_CHARS)


def pieces(text: str, cuts: list[int]) -> Iterator[str]:
    """``text`` in pieces cut at the given positions."""
    bounds = sorted({c % (len(text) + 1) for c in cuts})
    start = 0
    for end in [*bounds, len(text)]:
        if end > start:
            yield text[start:end]
            start = end


@settings(max_examples=60, deadline=None)
@given(
    values=st.lists(json_values, max_size=6),
    shape=st.sampled_from(["array", "object", "jsonl"]),
    cuts=st.lists(st.integers(min_value=0), max_size=8),
)
def test_records_do_not_depend_on_where_the_input_is_cut(
    values: list[Any], shape: str, cuts: list[int]
) -> None:
    if shape == "array":
        text = json.dumps(values, indent=1)
    elif shape == "object":
        text = json.dumps({"meta": 1, "rows": values, "x": "y"})
    else:
        text = "\n".join(json.dumps(v) for v in values) + "\n "
    how = "jsonl" if shape == "jsonl" else "auto"
    if shape == "jsonl" and not values:
        with pytest.raises(InputError, match="empty input"):
            data_records(pieces(text, cuts), "in", input_format=how)
        return
    whole = data_records([text], "in", input_format=how)
    cut = data_records(pieces(text, cuts), "in", input_format=how)
    assert cut == whole
    expected = [v if isinstance(v, dict) else {"value": v} for v in values]
    assert fullest(cut) == expected


@settings(max_examples=40, deadline=None)
@given(
    # text as it is read: decoded from bytes, so never a lone surrogate (Cs)
    lines=st.lists(
        st.text(
            st.characters(blacklist_characters="\r\n", blacklist_categories=("Cs",)), max_size=30
        ),
        max_size=8,
    ),
    cuts=st.lists(st.integers(min_value=0), max_size=8),
)
def test_text_lines_do_not_depend_on_where_the_input_is_cut(
    lines: list[str], cuts: list[int]
) -> None:
    from agentout.read.trouble import clean

    every = ["plain", *lines]
    text = "\n".join(every) + "\n"
    cut = data_records(pieces(text, cuts), "in", input_format="text")
    assert cut == data_records([text], "in", input_format="text")
    assert cut.total == len(every)
    numbers = [r.fullest["n"] for r in cut.records]
    assert numbers == sorted(set(numbers))
    for record in cut.records:  # each line as the scan reads it, a fold's note after it
        shown = str(record.fullest["line"]).split("\n[… ")[0]  # a folded block: its lines
        first = record.fullest["n"] - 1
        for offset, line in enumerate(shown.split("\n")):
            assert line == clean(every[first + offset].encode())


def endless(first: str, repeat: str) -> Iterator[str]:
    """An input that never ends: the reader must give up, not run out of memory."""
    yield first
    yield from itertools.repeat(repeat)


def test_detection_reads_no_further_than_it_needs() -> None:
    # One endless line: telling JSON from a log must not read to its end.
    chunks = endless("[" + '{"id": 1}, ' * 100, "x" * 65536)
    with pytest.raises(InputError) as caught:
        data_records(chunks, "in")
    assert str(caught.value) == "in:1:1102: expecting value (JSON)"


def test_an_endless_line_is_refused_once_past_the_limit() -> None:
    with pytest.raises(InputError) as caught:
        data_records(endless("log: ", "x" * 65536), "big.log", max_record_mib=1)
    assert str(caught.value) == (
        "big.log:1: line longer than 1 MiB "
        "(raise the limit with --max-record-mib or AGENTOUT_MAX_RECORD_MIB)"
    )


def test_an_endless_json_value_is_refused_once_past_the_limit() -> None:
    with pytest.raises(InputError) as caught:
        data_records(endless('[1,\n "', "y" * 65536), "big.json", max_record_mib=1)
    assert str(caught.value) == (
        "big.json:2:2: JSON value longer than 1 MiB "
        "(raise the limit with --max-record-mib or AGENTOUT_MAX_RECORD_MIB)"
    )


def test_a_long_line_within_a_raised_limit_is_read_whole() -> None:
    line = "z" * (3 << 20)
    result = data_records(pieces(line + "\nnext\n", [1 << 20, 2 << 20]), "in", max_record_mib=4)
    long, following = (r.fullest["line"] for r in result.records)
    # shown as its start and its end, how much was left out between them
    assert long.startswith("z" * 8192)
    assert long.endswith("z" * 1024)
    assert f"(+{len(line) - 8192 - 1024} bytes)" in long
    assert following == "next"
    with pytest.raises(InputError, match=r"^in:1: line longer than 2 MiB"):
        data_records([line], "in", max_record_mib=2)


def test_many_records_are_read_with_exact_locations_after_the_first_mebibyte() -> None:
    rows = "".join(json.dumps({"i": i, "pad": "p" * 90}) + "\n" for i in range(12000))
    assert len(rows) > 1 << 20  # past the point where the reader forgets what it has read
    result = data_records(pieces(rows, list(range(0, len(rows), 70000))), "in")
    assert len(result.records) == 12000
    bad = rows + '{"i": 12000, "pad": tru}\n'
    with pytest.raises(InputError) as caught:
        data_records(pieces(bad, list(range(0, len(bad), 70000))), "rows.jsonl")
    assert str(caught.value) == "rows.jsonl:12001:21: expecting value (JSON)"


# -- bad input -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            '[{"a": 1}, {"a": 2,}]',
            "in.json:1:20: expecting property name enclosed in double quotes (JSON)",
        ),
        (
            '[\n  {"a": 1}\n  {"a": 2}\n]',
            "in.json:3:3: expected ',' or ']' after an array element (JSON)",
        ),
        ("[1, 2", "in.json:1:6: expected ',' or ']' after an array element, found the end (JSON)"),
        ('{"a": 1}\n{"a": 2\n{"a": 3}\n', "in.json:3:1: expecting ',' delimiter (JSON)"),
        ('{"a": 1}\n{"a": x}\n', "in.json:2:7: expecting value (JSON)"),
        (
            '{"rows": [1, 2] "x": 1}',
            "in.json:1:17: expected ',' or '}' after a property value (JSON)",
        ),
        (
            '{"rows": [1, 2], x: 1}',
            "in.json:1:18: expected a property name in double quotes (JSON)",
        ),
        ('{"a": "unterminated', "in.json:1:7: unterminated string (JSON)"),
        (
            "[1, 2]\n[3]",
            "in.json:2:1: extra data after the JSON array (for JSONL, use --input-format jsonl)",
        ),
        ('{"a": "tab\there"}', "in.json:1:11: invalid control character in a string (JSON)"),
        ("[NaN]", "in.json:1:2: NaN is not valid JSON"),
        ('{"a": "NaN", "b": [1, -Infinity]}', "in.json:1:23: -Infinity is not valid JSON"),
        ('{"x": 1}\n{"a": "Infinity", "b": Infinity}', "in.json:2:24: Infinity is not valid JSON"),
    ],
)
def test_invalid_json_is_located(data: str, message: str) -> None:
    assert error(data) == message


def test_nesting_past_the_limit_is_refused_with_its_location() -> None:
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert len(read(f"[{ok}]").records) == 1
    deeper = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    assert error(f"[1,\n {deeper}]") == f"in.json:2:2: JSON nested deeper than {MAX_DEPTH} levels"


def test_nesting_deeper_than_python_recursion_is_a_message_not_a_crash() -> None:
    deep = '{"a":' * 100_000 + "1" + "}" * 100_000
    assert (
        error(f'{{"x": 1}}\n{deep}\n') == f"in.json:2:1: JSON nested deeper than {MAX_DEPTH} levels"
    )
    assert error("[" * 100_000) == f"in.json:1:2: JSON nested deeper than {MAX_DEPTH} levels"


def test_a_duplicate_key_keeps_the_last_value_and_warns_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = read('[{"a": 1}, {"id": 1, "id": 2}, {"b": 1, "b": 2}]')
    assert fullest(result) == [{"a": 1}, {"id": 2}, {"b": 2}]
    assert capsys.readouterr().err == (
        "agentout: warning: in.json:1:12: duplicate key 'id'; the last value is kept "
        "(1 more duplicate keys after this one)\n"
    )
    read('{\n  "rows": [1],\n  "rows": [2, 3]\n}')
    assert capsys.readouterr().err == (
        "agentout: warning: in.json:3:3: duplicate key 'rows'; the last value is kept\n"
    )


@pytest.mark.parametrize("data", [b"", b"   \n\t\n"])
def test_empty_input_is_an_error(data: bytes) -> None:
    assert error(data) == "in.json: empty input: no records"


def test_binary_input_is_refused_with_the_offset() -> None:
    assert error(b"PK\x03\x04\x00\x00") == (
        "in.json: binary data (a NUL byte at byte 4); agentout reads UTF-8 text, JSON or JSONL"
    )


def test_invalid_utf8_is_refused_with_the_byte_offset_even_across_chunks() -> None:
    data = "é".encode() * 10 + b"\xe2\x82" + b"(" + b"ok"
    assert error(data) == "in.json: invalid UTF-8 at byte 20 (0xe2); agentout reads UTF-8 text"
    text = _text.read_text(io.BytesIO(data), chunk_bytes=3, name="in")
    with pytest.raises(InputError, match=r"^in: invalid UTF-8 at byte 20 \(0xe2\)"):
        list(text)
    truncated = b"abc\xe2\x82"  # a character cut off by the end of the file
    assert error(truncated) == "in.json: invalid UTF-8 at byte 3 (0xe2); agentout reads UTF-8 text"


def test_files_that_cannot_be_read_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(InputError, match=r"missing\.json: no such file$"):
        read_data(str(missing))
    with pytest.raises(InputError, match=r": is a directory, not a file$"):
        read_data(str(tmp_path))

    def refuse(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    locked = tmp_path / "locked.json"
    locked.write_text("[]")
    monkeypatch.setattr(_text, "open", refuse, raising=False)  # root could read a 0o000 file
    with pytest.raises(InputError) as caught:
        read_data(str(locked))
    assert str(caught.value) == f"{locked}: permission denied"


def test_numbers_json_cannot_hold_are_kept_as_their_text() -> None:
    (record,) = read('[{"big": ' + "9" * 5000 + ', "inf": 1e999999999, "n": 1.5}]').records
    big, inf, n = record.fullest["big"], record.fullest["inf"], record.fullest["n"]
    assert isinstance(big, NumberText)
    assert big == "9" * 5000
    assert (inf, type(inf)) == ("1e999999999", NumberText)
    assert n == 1.5


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown input format"):
        read("[]", input_format="xml")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="at least 1 MiB"):
        read("[]", max_record_mib=0)


# -- the bundled examples --------------------------------------------------------------


def test_the_bundled_examples_read_as_their_kind() -> None:
    incidents = read_data(EXAMPLES / "incidents.json")
    assert incidents.header["input"] == "json"
    assert fullest(incidents) == json.loads((EXAMPLES / "incidents.json").read_text())
    events = read_data(EXAMPLES / "events.jsonl")
    assert events.header["input"] == "jsonl"
    assert len(events.records) == len((EXAMPLES / "events.jsonl").read_text().splitlines())
    log = read_data(EXAMPLES / "app.log")
    assert log.header["input"] == "text"
    assert log.total == len((EXAMPLES / "app.log").read_text().splitlines())


def test_an_object_of_several_parts_gives_each_part_s_records_and_counts() -> None:
    """pip inspect: a list of packages beside an object of settings, and scalar keys."""
    value = {
        "version": "1",
        "installed": [{"name": f"pkg{i}", "version": "1.0"} for i in range(3)],
        "environment": {"os_name": "posix", "python_version": "3.11"},
    }
    result = read(json.dumps(value))
    assert result.header["version"] == "1"
    assert result.header["parts"] == {"installed": 3, "environment": 2}
    kinds = [record.kind for record in result.records]
    assert kinds == ["P", "R", "R", "R", "P", "R", "R"]
    assert fullest(result) == [
        {"part": "installed", "records": 3},
        *value["installed"],
        {"part": "environment", "records": 2},
        {"key": "os_name", "value": "posix"},
        {"key": "python_version", "value": "3.11"},
    ]


def test_an_object_with_one_nested_object_stays_one_record() -> None:
    value = {"name": "x", "config": {"a": 1}, "tags": ["a", "b"]}
    assert fullest(read(json.dumps(value))) == [value]
