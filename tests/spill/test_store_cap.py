"""The store's cap on one output (``agentout.store.cap``): past it, a capture keeps the
output's head and tail, with one line between them saying how much was left out, and
still counts every byte and line of it exactly."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.store.cap import (
    DEFAULT_CAP,
    ENV_CAP,
    MIN_CAP,
    cut_marker,
    parse_size,
    store_cap,
    tail_bytes,
)
from agentout.store.capture import Capture

CAP = MIN_CAP  # 1 MiB: the head 768 KiB, the tail 256 KiB


def _output(seed: int, size: int, longest: int) -> bytes:
    """``size`` bytes of lines from 0 to ``longest`` characters (the last maybe cut)."""
    rng = random.Random(seed)
    lines = []
    total = 0
    while total < size:
        line = b"x" * rng.randint(0, longest) + b"\n"
        lines.append(line)
        total += len(line)
    return b"".join(lines)[:size]


def _captured(data: bytes, pieces: list[int]) -> Capture:
    capture = Capture(threshold=8192)
    at = 0
    for size in [*pieces, len(data)]:
        capture.feed(data[at : at + size])
        at += size
        if at >= len(data):
            break
    capture.close()
    return capture


# the same setting for every example: the fixture's one change holds for all
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 1 << 30),
    size=st.integers(CAP - 5000, 4 * CAP),
    longest=st.sampled_from([0, 10, 300, 70_000]),
    pieces=st.lists(st.integers(1, 1 << 20), min_size=1, max_size=20),
)
def test_past_the_cap_the_head_and_tail_are_kept_and_every_byte_counted(
    seed: int,
    size: int,
    longest: int,
    pieces: list[int],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(ENV_CAP, "1MiB")
    data = _output(seed, size, longest)
    capture = _captured(data, pieces)
    ref = capture.commit()
    assert ref is not None
    kept = ref.path.read_bytes()
    # the counts are the output's, exactly, whatever was kept
    assert capture.size == len(data)
    assert capture.newlines == data.count(b"\n")
    if not capture.dropped:  # it fit: kept byte for byte
        assert kept == data
        assert capture.capped is None
        return
    marker = cut_marker(capture.dropped, capture.dropped_lines, CAP)
    head, sep, tail = kept.partition(marker)
    assert sep == marker
    head = head.removesuffix(b"\n") if not data.startswith(head) else head
    assert data.startswith(head)
    assert data.endswith(tail)
    assert len(head) <= CAP - tail_bytes(CAP)
    assert len(tail) <= tail_bytes(CAP)
    left_out = data[len(head) : len(data) - len(tail)]
    assert capture.dropped == len(left_out)
    assert capture.dropped_lines == left_out.count(b"\n")
    assert len(kept) <= CAP + len(marker) + 1
    assert capture.lines == kept.count(b"\n") + (0 if kept.endswith(b"\n") else 1)
    assert capture.capped == (
        f"{len(data)} bytes, {capture.lines_printed} lines; {len(left_out)} bytes not kept"
    )
    # the tail starts a line, unless it holds none but maybe its last
    assert left_out.endswith(b"\n") or b"\n" not in tail[:-1]


def test_an_output_under_the_cap_is_kept_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_CAP, "1MiB")
    data = _output(1, CAP - 1, 80)
    capture = _captured(data, [4096] * 300)
    ref = capture.commit()
    assert ref is not None
    assert ref.path.read_bytes() == data
    assert capture.capped is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("268435456", 256 << 20),
        ("256MiB", 256 << 20),
        ("64M", 64 << 20),
        ("2 GiB", 2 << 30),
        ("1mb", 1 << 20),
        (1 << 30, 1 << 30),
        ("0", None),
        ("none", None),
        (0, None),
    ],
)
def test_sizes_are_read_as_a_person_writes_them(value: object, expected: int | None) -> None:
    assert parse_size(value, "here") == expected


@pytest.mark.parametrize("value", ["12 apples", "-5MiB", "1.5GiB", "100KiB", True, [1], 10])
def test_a_bad_size_names_where_it_came_from(value: object) -> None:
    with pytest.raises(ValueError, match=r"^here: "):
        parse_size(value, "here")


def test_the_cap_comes_from_the_environment_then_the_config_then_the_default(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AGENTOUT_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv(ENV_CAP, raising=False)
    assert store_cap() == (DEFAULT_CAP, None)
    assert DEFAULT_CAP == 256 << 20
    (tmp_path / "config.toml").write_text('[store]\nmax_bytes = "64MiB"\n')
    assert store_cap() == (64 << 20, None)
    monkeypatch.setenv(ENV_CAP, "2GiB")
    assert store_cap() == (2 << 30, None)
    monkeypatch.setenv(ENV_CAP, "0")
    assert store_cap() == (None, None)


def test_a_bad_setting_keeps_the_default_and_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("AGENTOUT_CONFIG_DIR", str(tmp_path))
    monkeypatch.delenv(ENV_CAP, raising=False)
    (tmp_path / "config.toml").write_text("[store]\nmax_bytes = 12\n")
    cap, warning = store_cap()
    assert cap == DEFAULT_CAP
    assert warning is not None
    assert warning.startswith(f"{tmp_path / 'config.toml'}: store.max_bytes: ")
    assert "the store keeps 256 MiB of an output" in warning


def test_no_cap_keeps_every_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV_CAP, "0")
    data = _output(7, 3 * CAP, 100)
    capture = _captured(data, [1 << 20] * 4)
    ref = capture.commit()
    assert ref is not None
    assert ref.path.read_bytes() == data
