"""``fit``: the same bytes as packing every record, from only the records a budget can show."""

from __future__ import annotations

import io
import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import agentout.sources.fit
from agentout.errors import InputError
from agentout.pack import Packed, pack
from agentout.read.data import read_data
from agentout.records import Result
from agentout.sources.fit import fit

EXAMPLES = Path(__file__).parent.parent / "examples" / "data"
FILES = sorted(p for p in EXAMPLES.iterdir() if p.suffix in {".json", ".jsonl", ".log"})
FORMATS = ["records", "json", "toon", "text", "auto"]
BUDGETS: list[dict[str, Any]] = [
    {"max_tokens": 0},
    {"max_tokens": 120},
    {"max_tokens": 400},
    {"max_tokens": 3000},
    {"max_tokens": 300, "tokenizer": "cl100k_base"},
    {"max_tokens": 80, "tokenizer": "chars4"},
    {"max_chars": 700},
    {"max_chars": 5000, "max_tokens": 900},
    {"preset": "agent"},
    {"preset": "verbose"},
]


def both(data: bytes, fmt: str, **budget: Any) -> tuple[Packed | str, Packed | str]:
    """(bounded, unbounded): ``fit``, and ``pack`` of every record read; or the error."""

    def bounded() -> Packed:
        return fit(io.BytesIO(data), format=fmt, name="in", **budget)

    def unbounded() -> Packed:
        return pack(read_data(io.BytesIO(data), name="in"), format=fmt, **budget)

    return _outcome(bounded), _outcome(unbounded)


def _outcome(run: Callable[[], Packed]) -> Packed | str:
    try:
        return run()
    except InputError as exc:
        return f"error: {exc}"


def jsonl(rows: list[Any]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_bundled_examples_come_out_the_same(path: Path, fmt: str) -> None:
    data = path.read_bytes()
    for budget in BUDGETS:
        bounded, unbounded = both(data, fmt, **budget)
        assert isinstance(bounded, Packed)
        assert bounded == unbounded, budget


def test_the_records_that_cannot_be_shown_are_counted_not_kept(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rows = [{"id": i, "title": f"incident {i}"} for i in range(1000)]
    seen: list[Result] = []

    def spy(result: Result, **options: Any) -> Packed:
        seen.append(result)
        return pack(result, **options)

    monkeypatch.setattr(agentout.sources.fit, "pack", spy)
    packed = fit(io.BytesIO(jsonl(rows)), max_tokens=50, name="in")
    fit(io.BytesIO(jsonl(rows)), max_chars=300, name="in")
    fit(io.BytesIO(jsonl(rows)), preset="agent", name="in")
    fit(io.BytesIO(jsonl(rows)), max_tokens=50, tokenizer="chars4", name="in")
    assert packed.stats.total == 1000  # the header's total counts every record
    assert 0 < packed.stats.included < 50
    kept = [len(r.records) for r in seen]
    # a token each, for the exact encodings; at least the 9 characters of "incident" and
    # a digit, whatever the format; the preset's 3; chars4 tokens of 4 characters at most
    assert kept[0] == 50
    assert 300 // 9 - 5 <= kept[1] <= 300 // 9
    assert kept[2] == 3
    assert 50 * 4 // 9 - 5 <= kept[3] <= 50 * 4 // 9
    assert [r.total for r in seen] == [1000] * 4


def test_lines_of_whitespace_share_tokens_and_are_all_kept() -> None:
    # CSV rows of " " cost a quarter of a token each: more rows than tokens fit.
    data = jsonl([{"a": " "}] * 3000)
    bounded, unbounded = both(data, "auto", max_tokens=100)
    assert isinstance(bounded, Packed)
    assert bounded.format == "auto:csv"
    assert bounded.stats.included > 100
    assert bounded == unbounded


def test_a_record_left_out_still_rules_out_csv_for_auto() -> None:
    rows: list[dict[str, Any]] = [{"id": i, "name": f"n{i}"} for i in range(400)]
    flat, broken = jsonl(rows), jsonl([*rows, {"id": 400, "name": {"first": "x"}}])
    assert fit(io.BytesIO(flat), format="auto", max_tokens=200).format == "auto:csv"
    bounded, unbounded = both(broken, "auto", max_tokens=200)
    assert isinstance(unbounded, Packed)
    assert unbounded.format != "auto:csv"  # the last record is no flat row
    assert bounded == unbounded


def test_bad_input_past_the_records_kept_is_still_refused() -> None:
    data = jsonl([{"id": i} for i in range(500)]) + b'{"id": }\n'
    with pytest.raises(InputError, match=r"in:501:8: expecting value"):
        fit(io.BytesIO(data), max_tokens=50, name="in")


def _peak_mib(run: Any) -> float:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("shape", ["jsonl", "array", "text"])
def test_memory_does_not_grow_with_the_input(tmp_path: Path, shape: str) -> None:
    path = tmp_path / "big"
    row = {"id": 0, "title": "checkout: pool exhausted", "tags": ["db"], "note": "word " * 30}
    lines = [json.dumps({**row, "id": i}) for i in range(30_000)]  # about 6 MB
    if shape == "array":
        path.write_text("[\n" + ",\n".join(lines) + "\n]\n")
    elif shape == "jsonl":
        path.write_text("\n".join(lines) + "\n")
    else:
        path.write_text("\n".join(f"INFO {line}" for line in lines) + "\n")
    fit(EXAMPLES / "events.jsonl", max_tokens=50)  # imports and encoding tables: not counted
    peak = _peak_mib(lambda: fit(path, max_tokens=300, format="auto"))
    # every record built would take over 40 MiB; the reader's buffer is a few MiB of text
    assert peak < 12, f"{peak:.1f} MiB"
    assert fit(path, max_tokens=300).stats.total == 30_000


_TEXT = st.text(alphabet=' /\t\nab:é,"{}', max_size=12) | st.text(max_size=100)
_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(-9, 10**6) | _TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from("xyz"), inner),
    max_leaves=6,
)
_ROW = st.dictionaries(st.sampled_from(["id", "name", "note", "tags"]), _VALUE, max_size=4)
_FLAT = st.fixed_dictionaries({"id": st.integers(0, 999), "name": st.sampled_from([" ", "/", "a"])})
# Records of a token or two, or less: the cases the bound is tight for.
_TINY = st.sampled_from([{}, {"a": " "}, {"a": "/"}, {"a": "//"}, {"a": "b"}, {"a": 1}, "", 0])
# One column: a CSV row as short as its value; and values a text block wraps, its
# whitespace dropped at the break.
_CELL = st.sampled_from(["b", "/", " ", "b b", 7]) | st.integers(0, 90).map(
    lambda n: "a" + " " * n + "b"
)


@st.composite
def _inputs(draw: st.DrawFn) -> bytes:
    rows: list[Any] = draw(
        st.lists(_ROW, max_size=60)
        | st.lists(_FLAT, max_size=300).map(lambda r: [*r, *r[:1]])
        | st.lists(_VALUE, max_size=40)
        | st.lists(_TINY, max_size=900)
        | st.lists(st.fixed_dictionaries({"a": _CELL}), min_size=1, max_size=400)
    )
    if draw(st.booleans()):
        rows.append(draw(_ROW))  # a last record that may break a table
    shape = draw(st.sampled_from(["array", "jsonl", "text"]))
    if shape == "array":
        return json.dumps(rows, indent=draw(st.sampled_from([None, 1]))).encode()
    if shape == "jsonl" and rows:
        return jsonl(rows)
    return ("\n".join(json.dumps(row)[::-1] for row in rows) + "\nlast\n").encode()


_BUDGET = st.one_of(
    st.fixed_dictionaries(
        {
            "max_tokens": st.integers(0, 400),
            "tokenizer": st.sampled_from(["o200k_base", "cl100k_base", "chars4"]),
        }
    ),
    st.fixed_dictionaries({"max_chars": st.integers(0, 3000)}),
    st.fixed_dictionaries({"max_chars": st.integers(0, 3000), "max_tokens": st.integers(0, 300)}),
    st.fixed_dictionaries({"preset": st.sampled_from(["agent", "verbose"])}),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=_inputs(), fmt=st.sampled_from(FORMATS), budget=_BUDGET)
def test_bounded_and_unbounded_give_the_same_bytes(
    data: bytes, fmt: str, budget: dict[str, Any]
) -> None:
    bounded, unbounded = both(data, fmt, **budget)
    assert bounded == unbounded


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(key="a", cell="b", count=300, fmt="auto", max_chars=400)  # rows of "b\n"
@example(key="k" * 40, cell="a" + " " * 70 + "b", count=300, fmt="text", max_chars=1500)
@given(
    key=st.sampled_from(["a", "k" * 40]),
    cell=_CELL,
    count=st.integers(1, 400),
    fmt=st.sampled_from(["auto", "text"]),
    max_chars=st.integers(0, 1500),
)
def test_rows_that_cost_little_more_than_their_values_come_out_the_same(
    key: str, cell: Any, count: int, fmt: str, max_chars: int
) -> None:
    # Where a record's least cost is nearly its real cost: one-column CSV rows, and text
    # lines whose values lose their whitespace where they wrap (after a long key).
    bounded, unbounded = both(jsonl([{key: cell}] * count), fmt, max_chars=max_chars)
    assert bounded == unbounded
