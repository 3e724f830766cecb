"""Hybrid delivery of records: inline when small, else a file reference with a summary."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import subprocess
import tracemalloc
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.deliver.hybrid import (
    DEFAULT_INLINE_THRESHOLD,
    deliver_jsonl,
    deliver_records,
    resolve_threshold,
)
from agentout.errors import InputError
from agentout.formats.records import parse
from agentout.store.spill import SpillStore
from agentout.tokens import count

property_settings = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

rows_strategy = st.lists(
    st.fixed_dictionaries(
        {
            "id": st.integers(min_value=-(10**6), max_value=10**6),
            "status": st.sampled_from(["ok", "error", "skipped"]),
            "latency": st.floats(allow_nan=False, allow_infinity=False, width=32),
            "msg": st.text(max_size=60),
        }
    ),
    max_size=120,
)


def rows(n: int) -> list[dict[str, Any]]:
    return [
        {"id": i, "status": "error" if i % 10 == 3 else "ok", "ms": i % 97, "msg": f"request {i}"}
        for i in range(n)
    ]


def header_of(text: str) -> dict[str, Any]:
    kind, fields = parse(text)[0]
    assert kind == "H"
    return fields


# -- the threshold ------------------------------------------------------------------------


def test_threshold_call_beats_environment_beats_default(monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_threshold() == DEFAULT_INLINE_THRESHOLD == 8192
    monkeypatch.setenv("AGENTOUT_INLINE_THRESHOLD", "100")
    assert resolve_threshold() == 100
    assert resolve_threshold(5000) == 5000


def test_a_bad_threshold_in_the_environment_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOUT_INLINE_THRESHOLD", "8k")
    with pytest.raises(ValueError, match="AGENTOUT_INLINE_THRESHOLD='8k'"):
        deliver_records(rows(3))


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown delivery mode 'big'"):
        deliver_records(rows(3), mode="big")


# -- inline or file -----------------------------------------------------------------------


def test_small_results_are_inline_and_spill_nothing(spill_dir: Path) -> None:
    delivery = deliver_records(rows(5))
    assert delivery.mode == "inline"
    assert delivery.ref is None
    assert header_of(delivery.text)["mode"] == "inline"
    assert [f["id"] for k, f in parse(delivery.text) if k == "R"] == [0, 1, 2, 3, 4]
    assert not spill_dir.exists() or list(spill_dir.iterdir()) == []


def test_large_results_become_a_file_reference_with_a_summary(spill_dir: Path) -> None:
    data = rows(1500)
    delivery = deliver_records(data)
    assert delivery.mode == "file"
    assert delivery.ref is not None
    spilled = delivery.ref.path.read_bytes()
    assert [json.loads(line) for line in spilled.splitlines()] == data
    head = header_of(delivery.text)
    assert head["mode"] == "file"
    assert head["ref"] == delivery.ref.ref
    assert head["path"] == str(delivery.ref.path)
    assert head["size"] == len(spilled)
    assert head["lines"] == 1500
    assert head["records"] == 1500
    assert head["fields"] == ["id", "status", "ms", "msg"]
    summaries = {f["field"]: f for k, f in parse(delivery.text) if k == "S"}
    expected = Counter(row["status"] for row in data)
    assert summaries["status"]["counts"] == dict(expected)
    assert summaries["ms"]["min"] == 0
    assert summaries["ms"]["max"] == 96
    assert "counts" not in summaries["msg"]  # 1500 distinct values: not a category
    assert len(delivery.text.encode("utf-8")) <= DEFAULT_INLINE_THRESHOLD


def test_the_threshold_is_honoured_exactly() -> None:
    data = rows(40)
    size = sum(len(json.dumps(r, separators=(",", ":"))) + 1 for r in data)
    assert deliver_records(data, inline_threshold=size * 10).mode == "inline"
    assert deliver_records(data, inline_threshold=size - 1).mode == "file"


def test_modes_force_inline_or_file() -> None:
    assert deliver_records(rows(3), mode="file").mode == "file"
    big = deliver_records(rows(2000), mode="inline")
    assert big.mode == "inline"
    assert sum(1 for k, _ in parse(big.text) if k == "R") == 2000


def test_a_budget_that_would_cut_inline_spills_instead() -> None:
    delivery = deliver_records(rows(60), max_tokens=300)
    assert delivery.mode == "file"
    assert count(delivery.text) <= 300


def test_the_environment_threshold_applies(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENTOUT_INLINE_THRESHOLD", "50")
    assert deliver_records(rows(5)).mode == "file"


def test_a_record_over_the_budget_is_a_file_reference_not_inline() -> None:
    """Review finding 2: inline though pack said over_budget."""
    delivery = deliver_records([{"msg": "word " * 300}], max_tokens=50)
    assert delivery.mode == "file"
    assert delivery.ref is not None
    head = header_of(delivery.text)
    assert count(delivery.text) <= 50 or head.get("over_budget") is True
    assert count(delivery.text) < 335  # the record alone, inline, cost 335


@property_settings
@given(data=rows_strategy, budget=st.integers(min_value=0, max_value=2000))
def test_the_delivered_text_is_within_budget_and_loses_nothing(
    data: list[dict[str, Any]], budget: int
) -> None:
    delivery = deliver_records(data, max_tokens=budget, inline_threshold=2000)
    head = header_of(delivery.text)
    assert head["tokens"] == count(delivery.text)
    assert count(delivery.text) <= budget or head.get("over_budget") is True
    if delivery.mode == "inline":
        assert "over_budget" not in head  # anything over the budget is a reference
        assert [f for k, f in parse(delivery.text) if k == "R"] == data  # "" kept
    else:
        assert delivery.ref is not None
        lines = delivery.ref.path.read_bytes().splitlines()
        assert [json.loads(line) for line in lines] == data
        assert head["records"] == len(data)
        shown = {f["field"]: f for k, f in parse(delivery.text) if k == "S"}
        if "status" in shown and "counts" in shown["status"]:
            assert shown["status"]["counts"] == dict(Counter(r["status"] for r in data))


@property_settings
@given(data=rows_strategy)
def test_the_same_input_gives_the_same_bytes(data: list[dict[str, Any]]) -> None:
    first = deliver_records(data, inline_threshold=500)
    second = deliver_records(data, inline_threshold=500)
    assert first.text == second.text  # the spilled file is named after its content
    if first.ref is not None:
        assert first.ref == second.ref
        assert first.ref.path.read_bytes() == b"".join(
            (json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n").encode() for r in data
        )


# -- JSONL in, byte for byte --------------------------------------------------------------


def test_jsonl_is_spilled_exactly_as_given(tmp_path: Path) -> None:
    lines = [b'{"a": 1,  "b": "x"}\n', b"\n", b'{"a":2}\r\n', b'{"a": 3, "\xc3\xa9": true}']
    delivery = deliver_jsonl(lines, mode="file")
    assert delivery.ref is not None
    assert delivery.ref.path.read_bytes() == b"".join(lines)
    assert header_of(delivery.text)["records"] == 3


def test_bad_jsonl_names_the_source_line_and_column() -> None:
    with pytest.raises(InputError) as caught:
        deliver_jsonl([b'{"a": 1}\n', b'{"a": }\n'], source="events.jsonl")
    assert str(caught.value).startswith("events.jsonl:2:7: ")


def test_carriage_returns_inside_a_line_are_json_whitespace_not_line_ends() -> None:
    """Review finding 5: a \\r inside a line split it when the inline rows were re-read."""
    delivery = deliver_jsonl([b'{"a":\r1}\n', b'{"b":2}\n'])
    assert delivery.mode == "inline"
    assert [f for k, f in parse(delivery.text) if k == "R"] == [{"a": 1}, {"b": 2}]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([b'{"a": 1}\n', b'{"a": NaN}\n'], "x.jsonl:2:7: NaN is not valid JSON"),
        ([b'{"a": -Infinity}\n'], "x.jsonl:1:7: -Infinity is not valid JSON"),
        ([b"[" * 200 + b"]" * 200 + b"\n"], "x.jsonl:1:1: JSON nested deeper than 128 levels"),
        ([b'{"a": 1}\n', b'{"caf\xe9": 1}\n'], "x.jsonl:2: invalid UTF-8 at byte 14 (0xe9)"),
        ([b'{"a": 1}\n', b'{"a": }\n'], "x.jsonl:2:7: expecting value (JSON)"),
    ],
)
def test_jsonl_is_read_by_the_rules_fit_reads_it_by(lines: list[bytes], message: str) -> None:
    """Review finding 15: NaN and Infinity, depth, and bad UTF-8 refused with where."""
    with pytest.raises(InputError) as caught:
        deliver_jsonl(lines, source="x.jsonl")
    assert str(caught.value).startswith(message)


def test_a_jsonl_record_over_the_size_limit_is_refused() -> None:
    line = b'{"a": "' + b"x" * (16 << 20) + b'"}\n'
    with pytest.raises(InputError, match=r"x\.jsonl:2: line longer than 16 MiB"):
        deliver_jsonl([b"{}\n", line], source="x.jsonl")


def test_a_failed_parse_leaves_no_file(spill_dir: Path) -> None:
    with pytest.raises(InputError):
        deliver_jsonl([b'{"a": 1}\n'] * 3000 + [b"nope\n"], source="x.jsonl")
    leftovers = list(spill_dir.iterdir()) if spill_dir.exists() else []
    assert leftovers == []


# -- when the store cannot be written -----------------------------------------------------


def test_a_read_only_store_falls_back_to_inline_with_a_warning(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _refuse_creating_files(monkeypatch)
    data = rows(500)
    delivery = deliver_records(data)
    assert delivery.mode == "inline"
    assert delivery.ref is None
    assert delivery.warning is not None
    assert "Read-only file system" in delivery.warning
    assert "Read-only file system" in header_of(delivery.text)["warning"]
    assert [f["id"] for k, f in parse(delivery.text) if k == "R"] == list(range(500))


def _refuse_creating_files(monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open

    def read_only(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)


@pytest.mark.parametrize("budget", [40, 200, 1000])
def test_a_failed_store_still_keeps_the_budget_and_says_what_was_not_kept(
    monkeypatch: pytest.MonkeyPatch, budget: int
) -> None:
    """Review finding 3a: the fallback packed with no limit, silently."""
    _refuse_creating_files(monkeypatch)
    delivery = deliver_records(rows(500), max_tokens=budget)
    head = header_of(delivery.text)
    assert delivery.mode == "inline"
    assert count(delivery.text) <= budget or head.get("over_budget") is True
    assert head["included"] < head["total"] == 500  # what was left out, said
    assert delivery.warning is not None
    assert "nothing beyond what is shown here was kept" in delivery.warning
    assert head["warning"] == delivery.warning


@contextlib.contextmanager
def _read_only(directory: Path) -> Iterator[None]:
    """Make a directory really unwritable: by mode, or (root ignores modes) immutable."""
    if os.geteuid() != 0:
        os.chmod(directory, 0o500)
        try:
            yield
        finally:
            os.chmod(directory, 0o700)
        return
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(directory)]).returncode != 0:
        pytest.skip("running as root without chattr +i: cannot make a directory read-only")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", str(directory)], check=True)


def test_a_really_read_only_store_falls_back(spill_dir: Path) -> None:
    spill_dir.mkdir(mode=0o700)
    with _read_only(spill_dir):
        delivery = deliver_records(rows(500))
    assert delivery.mode == "inline"
    assert delivery.warning
    assert [f["id"] for k, f in parse(delivery.text) if k == "R"] == list(range(500))
    assert list(spill_dir.iterdir()) == []


def test_a_full_disk_mid_stream_loses_nothing(
    monkeypatch: pytest.MonkeyPatch, spill_dir: Path
) -> None:
    real_write = os.write
    written = 0

    def fill_up(fd: int, data: bytes) -> int:
        nonlocal written
        if written > 1 << 20:
            raise OSError(errno.ENOSPC, "No space left on device")
        written += len(data)
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", fill_up)
    data = [{"id": i, "pad": "x" * 1000} for i in range(2500)]  # 2.5 MB: fills part way
    delivery = deliver_records(data)
    assert delivery.mode == "inline"
    assert delivery.warning is not None
    assert "No space left" in delivery.warning
    assert written > 1 << 20  # some had reached the file, and was read back from it
    assert [f for k, f in parse(delivery.text) if k == "R"] == data
    assert list(spill_dir.iterdir()) == []  # the partial file is gone


def test_jsonl_read_back_after_a_full_disk_is_read_by_the_same_rules(
    monkeypatch: pytest.MonkeyPatch, spill_dir: Path
) -> None:
    real_write = os.write
    written = 0

    def fill_up(fd: int, data: bytes) -> int:
        nonlocal written
        if written > 1 << 20:
            raise OSError(errno.ENOSPC, "No space left on device")
        written += len(data)
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", fill_up)
    lines = [b'{"id": %d,\r"pad": "%s"}\n' % (i, b"x" * 1000) for i in range(2500)]
    delivery = deliver_jsonl(lines, source="x.jsonl")
    assert delivery.mode == "inline"
    assert delivery.warning is not None
    assert [f["id"] for k, f in parse(delivery.text) if k == "R"] == list(range(2500))


def test_a_symlinked_store_falls_back_rather_than_writing_through_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "link"
    link.symlink_to(elsewhere)
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(link))
    delivery = deliver_records(rows(500))
    assert delivery.mode == "inline"
    assert delivery.warning is not None
    assert "symlink" in delivery.warning
    assert list(elsewhere.iterdir()) == []


# -- streaming ----------------------------------------------------------------------------


def test_memory_stays_flat_whatever_the_size(tmp_path: Path) -> None:
    def generate(n: int) -> Any:
        for i in range(n):
            yield {"id": i, "status": "ok" if i % 3 else "error", "payload": "x" * 450}

    store = SpillStore(tmp_path / "store")
    tracemalloc.start()
    try:
        delivery = deliver_records(generate(28_000), store=store)  # about 14 MB of JSONL
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert delivery.ref is not None
    assert delivery.ref.size > 13_000_000
    assert peak < 4_000_000


def test_a_file_reference_is_packed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hot path: the summary and the preview in one pack, not the summary first."""
    import agentout.deliver.hybrid as deliver_module

    calls = 0
    real_pack = deliver_module.pack

    def counting(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        return real_pack(*args, **kwargs)

    monkeypatch.setattr(deliver_module, "pack", counting)
    delivery = deliver_records(rows(1500), max_tokens=300)
    assert delivery.mode == "file"
    assert calls == 1
    assert [k for k, _ in parse(delivery.text)][:5] == ["H", "S", "S", "S", "S"]
    assert "R" in [k for k, _ in parse(delivery.text)]  # the preview after the summary
