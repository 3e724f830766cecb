"""Lossless formats read back to exactly what they were given; no format writes what it
should not (docs/formats.md: "Lossless" and "What every format escapes").

- json, records, toon, toon-tab, csv, and whatever auto picks: parsing the output gives
  back every record shown, every value and type (null, "", [], {} kept; "1" apart from
  1, "true" from true, "null" from null), at least 500 generated examples each.
- json is RFC 8259: a strict parser reads every output, even of records holding NaN,
  infinities and integers too long to print; the header counts the numbers written as text.
- No format writes a raw control character (but the LF that ends its lines, and the tab
  that toon-tab puts between cells), bidi control or Unicode line break.
- A cut is marked where no value can forge it.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pytest
import toon_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout import Record, Result, pack
from agentout.formats import get_format
from agentout.formats._json import UNSAFE
from agentout.formats.csv import read as read_csv
from agentout.formats.records import parse
from agentout.formats.toon import TAB_FORMAT
from agentout.records.values import Cut, NumberText


@pytest.fixture(autouse=True)
def _formats_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Round trips test the formats: secrets redaction (which pack does) is tested apart,
    and would hide a generated '_PWD' value."""
    monkeypatch.setenv("AGENTOUT_REDACT", "0")


_tricky = st.sampled_from(
    [
        "1",
        "-2.5",
        "1e3",
        "true",
        "false",
        "null",
        "",
        " ",
        "#x",
        "[1]",
        "{}",
        '"q"',
        "a,b",
        "x\ny",
        "\t",
        "\r",
        "\x1b[31m",
        "\u202e",
        "\u2066",
        "\u2028",
        "\x85",
        "\x7f",
        "…+3",
        "... (12 more chars)",
        "a=b",
        "🔥",
        "é",
        "-",
        "0",
        "01",
        "+1",
        "NaN",
    ]
)
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**15), max_value=10**15)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | _tricky
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
_keys = st.text(max_size=6) | st.sampled_from(["id", "1", "true", "a b", "k\u202e", "_kind"])
_records = st.lists(
    st.dictionaries(_keys.filter(lambda k: k != "_kind"), _values, max_size=5), max_size=5
)


@st.composite
def _flat_records(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Records with one set of keys in one order and scalar values: what CSV is for."""
    keys = draw(st.lists(_keys.filter(lambda k: k != "_kind"), min_size=1, max_size=4, unique=True))
    count = draw(st.integers(min_value=1, max_value=5))
    return [{key: draw(_scalars) for key in keys} for _ in range(count)]


def _same(a: Any, b: Any, ordered: bool = True) -> bool:
    """The same JSON value: 1.0 is 1, but true is not 1, nor "1" 1; keys in order (unless
    not ``ordered``: a TOON table states one key order for all its rows)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b or math.isclose(a, b, rel_tol=1e-15)
    if isinstance(a, list):
        return (
            isinstance(b, list)
            and len(a) == len(b)
            and all(_same(x, y, ordered) for x, y in zip(a, b, strict=True))
        )
    if isinstance(a, dict):
        keys_agree = list(a) == list(b) if ordered else a.keys() == b.keys()
        return isinstance(b, dict) and keys_agree and all(_same(a[k], b[k], ordered) for k in a)
    return type(a) is type(b) and a == b


def _read_back(name: str, text: str) -> list[dict[str, Any]]:
    if name == "json":
        return list(json.loads(text)["records"])
    if name == "records":
        return [fields for _, fields in parse(text)[1:]]
    if name in ("toon", "toon-tab"):
        return list(toon_format.decode(text)["records"])
    if name == "csv":
        return read_csv(text)
    raise AssertionError(name)


def _round_trip(name: str, rows: list[dict[str, Any]]) -> None:
    result = Result.of([Record.of(row) for row in rows])
    fmt = TAB_FORMAT if name == "toon-tab" else get_format(name)
    packed = pack(result, format=fmt)
    shown = packed.format.removeprefix("auto:")
    assert packed.stats.included == len(rows)
    back = _read_back(shown, packed.text)
    # auto's TOON keeps key order (it refuses a table that would not); toon asked for
    # by name may state one order for a table's rows
    assert _same(back, rows, ordered=name not in ("toon", "toon-tab")), (shown, packed.text)


_lossless = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("name", ["json", "records", "toon", "toon-tab", "auto"])
@_lossless
@given(rows=_records)
def test_every_lossless_format_reads_back_exactly(name: str, rows: list[dict[str, Any]]) -> None:
    _round_trip(name, rows)


@pytest.mark.parametrize("name", ["csv", "auto"])
@_lossless
@given(rows=_flat_records())
def test_tables_read_back_exactly(name: str, rows: list[dict[str, Any]]) -> None:
    _round_trip(name, rows)


def test_the_string_one_and_the_number_one_stay_apart_in_auto() -> None:
    rows = [{"a": "1", "b": "true", "c": None, "d": ""}, {"a": 2, "b": True, "c": "null", "d": []}]
    packed = pack(Result.of([Record.of(r) for r in rows]), format="auto")
    assert _read_back(packed.format.removeprefix("auto:"), packed.text) == rows


# -- strict JSON and the numbers JSON cannot hold ----------------------------------------


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_HOSTILE = {
    "inf": lambda: math.inf,
    "-inf": lambda: -math.inf,
    "nan": lambda: math.nan,
    "big": lambda: 10**5000,
    "-big": lambda: -(10**4400),
    "text": lambda: NumberText("1e999999999"),
}
# built when drawn: hypothesis describes its strategies with repr, which a 5,000-digit
# integer refuses
_hostile_numbers = st.sampled_from(sorted(_HOSTILE)).map(lambda name: _HOSTILE[name]())
_any_values = st.recursive(
    _scalars | _hostile_numbers,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def _hostile_count(value: Any) -> int:
    if isinstance(value, dict):
        return sum(map(_hostile_count, value.values()))
    if isinstance(value, list):
        return sum(map(_hostile_count, value))
    if isinstance(value, NumberText):
        return 1
    if isinstance(value, float) and not math.isfinite(value):
        return 1
    return int(isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**4000)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(st.dictionaries(st.text(max_size=4), _any_values, max_size=4), max_size=5),
    max_tokens=st.none() | st.integers(min_value=0, max_value=400),
)
def test_json_output_is_strict_json_whatever_the_numbers(
    rows: list[dict[str, Any]], max_tokens: int | None
) -> None:
    result = Result.of([Record.of(row) for row in rows], header={"source": "x"})
    packed = pack(result, format="json", max_tokens=max_tokens)
    out = json.loads(packed.text, parse_constant=_refuse)
    expected = sum(_hostile_count(view) for _, view in packed.document.records)
    assert out.get("numbers_as_text", 0) == expected


def test_a_number_json_cannot_hold_is_its_text_in_a_string() -> None:
    rows = [{"inf": math.inf, "big": 10**5000, "read": NumberText("1e999999999"), "n": 1}]
    packed = pack(Result.of([Record.of(r) for r in rows]), format="json")
    out = json.loads(packed.text, parse_constant=_refuse)
    [record] = out["records"]
    assert record["inf"] == "Infinity"
    assert record["big"] == "1" + "0" * 5000
    assert record["read"] == "1e999999999"
    assert record["n"] == 1
    assert out["numbers_as_text"] == 3
    line = pack(Result.of([Record.of(r) for r in rows]), format="records").text
    assert "numbers_as_text=3" in line.splitlines()[0]
    assert 'read="1e999999999"' in line


# -- what no format writes raw --------------------------------------------------------------

_ALL = ["records", "json", "toon", "toon-tab", "csv", "text", "auto"]
_RAW = re.compile(f"[{UNSAFE}]")
_hostile_text = st.text(
    st.sampled_from(list("ab \t\n\r\x00\x07\x1b\x7f\x85\x9b\u202a\u202e\u2066\u2069\u2028\u2029é")),
    max_size=12,
)


@pytest.mark.parametrize("name", _ALL)
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.dictionaries(
            _hostile_text, _hostile_text | st.lists(_hostile_text, max_size=2), max_size=3
        ),
        max_size=4,
    ),
    header=st.dictionaries(st.sampled_from(["cmd", "source"]), _hostile_text, max_size=2),
)
def test_no_format_writes_a_raw_control_bidi_or_line_break(
    name: str, rows: list[dict[str, Any]], header: dict[str, Any]
) -> None:
    fmt = TAB_FORMAT if name == "toon-tab" else get_format(name)
    packed = pack(Result.of([Record.of(r) for r in rows], header=header), format=fmt)
    allowed = "\n\t" if packed.format.endswith("toon-tab") else "\n"
    found = {c for c in _RAW.findall(packed.text) if c not in allowed}
    assert not found, packed.text
    if packed.format.endswith("toon-tab"):  # tabs only between cells: values read back
        assert _same(toon_format.decode(packed.text)["records"], rows, ordered=False)


# -- cuts ----------------------------------------------------------------------------------------


def test_a_cut_is_marked_where_no_value_can_forge_it() -> None:
    forged = "web-frontend: conn…+41"
    also = "web-frontend: conn... (41 more chars)"
    record = Record.of({"title": Cut("web-frontend: conn", 41), "a": forged, "b": also})
    result = Result.of([record, Record.of({"title": forged})])
    line = pack(result, format="records").text.splitlines()[1]
    assert line.startswith('R title="web-frontend: conn"…+41 a="web-frontend: conn…+41" ')
    [(_, first), (_, second)] = parse(pack(result, format="records").text)[1:]
    assert isinstance(first["title"], Cut)
    assert first["title"].more == 41
    assert not isinstance(first["a"], Cut)
    assert not isinstance(second["title"], Cut)
    out = json.loads(pack(result, format="json").text)
    assert out["cut"] == {"0": {"title": 41}}  # the header names the one real cut
    assert out["records"][0]["title"] == "web-frontend: conn…"
    assert out["records"][1]["title"] == forged
    assert toon_format.decode(pack(result, format="toon").text)["cut"] == {"0": {"title": 41}}


def test_auto_never_reorders_keys_and_toon_reads_back_the_same_objects() -> None:
    rows = [
        {"": "", "a": ""},
        {"a": "", "": ""},
        {"b": 1, "c": [{"x": 1, "y": 2}, {"y": 3, "x": 4}]},
    ]
    auto = pack(Result.of([Record.of(r) for r in rows]), format="auto")
    assert not auto.format.startswith("auto:toon")
    assert _same(_read_back(auto.format.removeprefix("auto:"), auto.text), rows)
    for fmt in (get_format("toon"), TAB_FORMAT):
        packed = pack(Result.of([Record.of(r) for r in rows[:2]]), format=fmt)
        assert toon_format.decode(packed.text)["records"] == rows[:2]  # dict equality: no order
