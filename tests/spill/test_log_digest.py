"""Reading a log as it streams: the lines that matter kept and ranked, noise folded."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.formats.records import parse
from agentout.pack import pack
from agentout.records import Record, Result
from agentout.sources.log import BINARY, LogDigest, LogSink
from agentout.tokens import count

LOGS = Path(__file__).parents[2] / "examples" / "logs"

property_settings = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


def digest(data: bytes, chunk: int | None = None) -> LogDigest:
    reader = LogDigest()
    step = chunk or max(1, len(data))
    for start in range(0, len(data), step):
        reader.feed(data[start : start + step])
    return reader.finish()


def levels(reader: LogDigest) -> dict[int, str]:
    return {line.n: line.level for line in reader.kept()}


def texts(reader: LogDigest) -> list[str]:
    return [line.shown(10_000) for line in reader.kept()]


def test_ansi_colour_is_stripped_and_control_characters_dropped() -> None:
    reader = digest(b"\x1b[1;31merror:\x1b[0m build failed\x07\n")
    assert texts(reader) == ["error: build failed"]
    assert levels(reader) == {1: "error"}
    assert not reader.complete  # the view is not the bytes: delivery keeps the file


def test_a_carriage_return_rewrite_keeps_the_last_state() -> None:
    reader = digest(b"Downloading  10%\rDownloading  55%\rDownloading 100%\r\ndone\n")
    assert texts(reader) == ["Downloading 100%", "done"]
    assert reader.physical == 2


def test_crlf_line_endings_are_not_rewrites() -> None:
    reader = digest(b"one\r\ntwo\r\n")
    assert texts(reader) == ["one", "two"]
    assert reader.complete


def test_repeated_lines_fold_with_a_count() -> None:
    reader = digest(b"start\n" + b"retrying connection\n" * 37 + b"gave up\n")
    assert texts(reader) == ["start", "retrying connection (\u00d737)", "gave up"]
    assert [line.n for line in reader.kept()] == [1, 2, 39]


def test_progress_lines_fold_into_their_last_state() -> None:
    data = b"".join(b"Receiving objects: %3d%% (%d/200)\n" % (i // 2, i) for i in range(200))
    reader = digest(data + b"error: pack truncated\n")
    kept = reader.kept()
    assert len(kept) == 2
    assert kept[0].text == "Receiving objects:  99% (199/200)"
    assert kept[0].repeat == 200
    assert kept[1].level == "error"


def test_binary_output_is_named_not_dumped() -> None:
    blob = bytes(b for b in range(256) if b != 10) * 4
    reader = digest(b"header\n" + blob + b"\n" + blob + b"\nafter\n")
    assert texts(reader) == ["header", f"{BINARY} (\u00d72)", "after"]
    assert reader.binary_lines == 2
    assert reader.summary()["binary_lines"] == 2


def test_invalid_utf8_is_replaced_in_the_view() -> None:
    reader = digest(b"caf\xe9 is ready\n")
    assert texts(reader) == ["caf\ufffd is ready"]
    assert not reader.complete


def test_a_huge_line_is_cut_for_the_view_and_says_how_much() -> None:
    reader = digest(b"y" * 100_000 + b"\nend\n")
    first = reader.kept()[0]
    assert first.cut == 100_000 - 8192
    assert first.shown(100_000).endswith(f"… (+{100_000 - 8192} bytes)")


@pytest.mark.parametrize("limit", [160, 2000])
def test_a_huge_line_shown_short_counts_everything_not_shown(limit: int) -> None:
    """Review finding 7: the count left out what was cut before the view was made."""
    reader = digest("é".encode() * 50_000 + b"\nend\n")  # 100,000 bytes, 2 each
    first = reader.kept()[0]
    shown = first.shown(limit)
    assert shown.startswith("é" * limit + "… (+")
    assert shown.endswith(f"(+{100_000 - 2 * limit} bytes)")


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        ("gcc-build-failure.log", {20: "error", 23: "error", 32: "error", 10: "warning"}),
        ("pytest-failure.log", {8: "error", 264: "error", 296: "error", 322: "error"}),
        ("cargo-test-failure.log", {73: "error", 81: "error", 160: "error", 162: "error"}),
        ("npm-test-failure.log", {158: "error", 183: "error", 1: "warning"}),
        ("pip-install-failure.log", {15: "error", 16: "error", 18: "error", 26: "error"}),
    ],
)
def test_real_logs_errors_are_found(log: str, expected: dict[int, str]) -> None:
    found = levels(digest((LOGS / log).read_bytes()))
    assert {n: found.get(n) for n in expected} == expected


def test_compiler_context_follows_its_error() -> None:
    reader = digest((LOGS / "gcc-build-failure.log").read_bytes())
    found = levels(reader)
    assert [found[n] for n in (21, 22)] == ["context", "context"]
    by_number = {line.n: line for line in reader.kept()}
    assert by_number[21].parent == 20


def test_a_python_traceback_is_error_and_context() -> None:
    log = (
        b"running\n"
        b"Traceback (most recent call last):\n"
        b'  File "app.py", line 3, in <module>\n'
        b"    main()\n"
        b"ValueError: bad port\n"
        b"exiting\n"
    )
    assert levels(digest(log)) == {
        1: "info",
        2: "error",
        3: "context",
        4: "context",
        5: "error",
        6: "info",
    }


def test_priority_puts_errors_and_the_last_lines_before_noise() -> None:
    log = b"".join(b"compiling unit %d\n" % i for i in range(300))
    log += b"src/a.c:1:1: error: boom\n" + b"".join(b"linking %d\n" % i for i in range(300))
    reader = digest(log)
    kept = reader.kept()
    order = reader.priority(kept)
    first = [kept[i] for i in order[:4]]
    assert [line.n for line in first[:3]] == [601, 600, 599]  # the last three, newest first
    assert first[3].level == "error"


def test_the_last_line_comes_first_so_a_final_error_survives_any_budget() -> None:
    """Review finding 4: the last lines went in line order, the final error last."""
    reader = digest(b"".join(b"line %d\n" % i for i in range(2000)) + b"ERROR: boom\n")
    kept = reader.kept()
    assert kept[reader.priority(kept)[0]].text == "ERROR: boom"


def test_memory_is_bounded_whatever_the_length() -> None:
    reader = LogDigest()
    for i in range(50_000):
        reader.feed(b"line %d\n" % i)
        if i % 100 == 0:
            reader.feed(b"error: failure %d\n" % i)
    reader.finish()
    assert reader.physical == 50_500
    assert len(reader.kept()) <= 400 + 400 + 500 * 2
    assert reader.counts["error"] == 500
    assert not reader.lines.complete


lines = st.lists(
    st.one_of(
        st.sampled_from(
            [
                b"error: x failed",
                b"warning: unused",
                b"   |   ^~~",
                b"ok",
                b"",
                b"50%\r100%",
                b"\x1b[32mPASS\x1b[0m",
                b"Traceback (most recent call last):",
                b"  File 'a.py'",
                b"KeyError: 'k'",
            ]
        ),
        st.binary(max_size=40).filter(lambda b: b"\n" not in b),
        st.text(max_size=40).map(lambda t: t.replace("\n", " ").encode()),
    ),
    max_size=60,
)


@property_settings
@given(log=lines, chunk=st.integers(min_value=1, max_value=64))
def test_any_chunking_reads_the_same(log: list[bytes], chunk: int) -> None:
    data = b"\n".join(log)
    whole, pieces = digest(data), digest(data, chunk)
    assert [(x.n, x.text, x.level, x.repeat) for x in whole.kept()] == [
        (x.n, x.text, x.level, x.repeat) for x in pieces.kept()
    ]
    assert (
        whole.physical
        == pieces.physical
        == (data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0))
    )


@property_settings
@given(log=lines, budget=st.integers(min_value=0, max_value=1500))
def test_a_delivered_log_is_within_budget_and_its_file_is_exact(
    log: list[bytes], budget: int
) -> None:
    data = b"\n".join(log) + b"\n"
    sink = LogSink(inline_threshold=200)
    for start in range(0, len(data), 50):
        sink.feed(data[start : start + 50])
    delivery = sink.deliver({"cmd": "generated"}, max_tokens=budget)
    head = dict(parse(delivery.text)[0][1])
    assert count(delivery.text) <= budget or head.get("over_budget") is True
    if delivery.mode == "inline":
        assert "over_budget" not in head
    if delivery.ref is not None:
        assert delivery.ref.path.read_bytes() == data
    records = [fields for kind, fields in parse(delivery.text) if kind in "ETWL"]
    numbers = [fields["n"] for fields in records]
    assert numbers == sorted(set(numbers))  # whole lines, in order, each once


def test_pack_order_ranks_coverage_but_keeps_positions() -> None:
    records = [Record.of({"n": i, "text": f"line number {i} " * 3}) for i in range(50)]
    order = [49, 0, 25, *range(1, 25), *range(26, 49)]
    packed = pack(Result.of(records), max_tokens=150, order=order)
    shown = [fields["n"] for kind, fields in parse(packed.text) if kind == "R"]
    assert shown == sorted(shown)  # in position order, whatever the priority
    assert set(shown) == set(order[: len(shown)])  # the most important ones
    assert 3 <= len(shown) < 50
    assert packed.stats.total == 50
    assert packed.stats.omitted == 50 - len(shown)


def test_the_count_of_lines_not_shown_is_of_the_whole_log() -> None:
    """Review finding 18: total/omitted counted the lines kept in memory, not the log's."""
    sink = LogSink()
    for i in range(20_000):
        sink.feed(b"line %d\n" % i)
    sink.feed(b"waiting\n" * 5)  # folded into one: a record of 5 lines
    delivery = sink.deliver({"cmd": "x"}, max_tokens=200)
    head = dict(parse(delivery.text)[0][1])
    assert head["lines"] == 20_005
    assert head["total"] == 20_001  # every line, the five identical ones folded into one
    assert head["omitted"] == head["total"] - head["included"]


@pytest.mark.parametrize("budget", [60, 200, 600])
def test_a_failed_store_keeps_the_budget_and_the_lines_that_matter(
    monkeypatch: pytest.MonkeyPatch, budget: int
) -> None:
    """Review finding 3a: with the store unwritable, the budget was ignored."""
    real_open = os.open

    def read_only(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    sink = LogSink()
    sink.feed(b"".join(b"%d\n" % i for i in range(10_000)) + b"error: it broke\n")
    delivery = sink.deliver({"cmd": "x"}, max_tokens=budget)
    head = dict(parse(delivery.text)[0][1])
    assert delivery.mode == "inline"
    assert delivery.warning is not None
    assert "nothing beyond what is shown here was kept" in delivery.warning
    assert count(delivery.text) <= budget or head.get("over_budget") is True
    assert head["omitted"] > 0
    shown = [f["text"] for kind, f in parse(delivery.text) if kind in "ETWL"]
    assert "error: it broke" in shown
