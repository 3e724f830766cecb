"""The line index: the same answers as reading every line, whatever the pieces."""

from __future__ import annotations

import random

import pytest

from agentout.store.index import IndexBuilder, LineIndex


def _naive(data: bytes) -> list[tuple[int, int, int]]:
    """(number, offset, length) of every line, as show counts them."""
    out, offset = [], 0
    for number, line in enumerate(data.splitlines(keepends=True), start=1):
        out.append((number, offset, len(line.rstrip(b"\n"))))
        offset += len(line)
    return out


def _build(data: bytes, pieces: list[int], step: int) -> tuple[LineIndex, list[int]]:
    builder = IndexBuilder(step=step)
    at = 0
    for size in pieces:
        builder.feed(data[at : at + size])
        at += size
    builder.feed(data[at:])
    raw = builder.finish()
    reads: list[int] = []

    def fetch(start: int, end: int) -> bytes:
        reads.append(end - start)
        return raw[start:end]

    index = LineIndex.open(fetch)
    assert index is not None
    return index, reads


@pytest.mark.parametrize("trial", range(30))
def test_index_agrees_with_reading_every_line(trial: int) -> None:
    rng = random.Random(trial)
    lines = [
        b"x" * rng.choice([0, 1, 5, 40, 300, 5000]) + b"\n" for _ in range(rng.randint(0, 400))
    ]
    data = b"".join(lines) + (b"tail" if trial % 3 == 0 else b"")
    pieces = [rng.randint(1, 4000) for _ in range(rng.randint(0, 30))]
    index, _ = _build(data, pieces, step=rng.choice([64, 256, 4096]))
    every = _naive(data)
    assert index.size == len(data)
    assert index.lines == len(every)
    for number, _, _ in every[:: max(1, len(every) // 40)] + every[-1:]:
        first, offset = index.start(number)
        assert first <= number
        assert (first, offset) in {(n, o) for n, o, _ in every}
        assert index.longest_from(number) >= max(length for n, _, length in every if n >= number)


def test_a_large_index_is_read_a_window_at_a_time() -> None:
    data = b"".join(b"%09d\n" % i for i in range(400_000))  # 4 MB, 250 records of 16 KiB
    index, reads = _build(data, [], step=16 << 10)
    assert index.start(300_000)[0] <= 300_000
    assert index.start(300_000)[0] > 300_000 - 1700  # within one segment of the line
    assert sum(reads) < 10_000
