"""Plain lines taken a run at a time give exactly what taking them one by one gives:
the same lines kept, levels, folds, numbers, counts and flags, in any chunking."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.sources import log
from agentout.sources.log import LogDigest

PLAIN = [b"000123 alpha bravo value=17", b"compiling module foo", b"ok", b"  indented detail"]
OTHER = [
    b"error: something broke",
    b"Traceback (most recent call last):",
    b'  File "x.py", line 3, in <module>',
    b"ValueError: bad",
    b"warning: unused",
    b"W: apt says",
    b"Everything fine",  # starts with E: looked at closely
    b"downloading 42% 1.2 MB/s",
    b"=========",
    b"",
    b"   ",
    b"caf\xc3\xa9 au lait",
    b"bad \xff byte",
    b"\x1b[31mred\x1b[0m",
    b"tab\there",
    b"bin\x00ary",
    b"redraw 1\rredraw 2",
    b"x" * 9000,  # longer than a kept line
    b"make: *** [all] Error 2",
    b"thread 'main' panicked at src/lib.rs:7:32:",
]


class OneByOne(LogDigest):
    def _quiet(self) -> bool:
        return False


def _state(digest: LogDigest) -> Any:
    digest.finish()
    lines = [(x.n, x.text, x.level, x.repeat, x.cut, x.parent) for x in digest.kept()]
    return (
        lines,
        digest.counts,
        digest.physical,
        digest.size,
        digest.altered,
        digest.binary_lines,
        digest.lines.count,
        digest.complete,
        digest.summary(),
        digest.priority(digest.kept()),
    )


_runs = st.lists(
    st.one_of(
        st.tuples(st.sampled_from(PLAIN), st.integers(1, 300)),  # a run of one plain line
        st.tuples(st.sampled_from(PLAIN + OTHER), st.just(1)),
    ),
    max_size=40,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    runs=_runs,
    mixed=st.booleans(),
    keep_all=st.booleans(),
    cuts=st.lists(st.integers(0, 1 << 16), max_size=6),
    final_newline=st.booleans(),
    run_bytes=st.sampled_from([1, 64, log._PLAIN_RUN_BYTES]),
)
def test_runs_at_a_time_equal_one_by_one(
    runs: list[tuple[bytes, int]],
    mixed: bool,
    keep_all: bool,
    cuts: list[int],
    final_newline: bool,
    run_bytes: int,
) -> None:
    lines: list[bytes] = []
    for i, (line, times) in enumerate(runs):
        if mixed and times > 1:  # vary the lines of a run, so some fold and some do not
            lines.extend(line + (b" %d" % (j // 3) if i % 2 else b"") for j in range(times))
        else:
            lines.extend([line] * times)
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    fast, slow = LogDigest(keep_all=keep_all), OneByOne(keep_all=keep_all)
    bounds = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    default, log._PLAIN_RUN_BYTES = log._PLAIN_RUN_BYTES, run_bytes  # small: runs often
    try:
        for a, b in itertools.pairwise(bounds):
            fast.feed(data[a:b])
            slow.feed(data[a:b])
    finally:
        log._PLAIN_RUN_BYTES = default
    assert _state(fast) == _state(slow)


def test_a_long_plain_log_is_taken_in_runs_and_kept_at_its_ends() -> None:
    data = b"".join(b"%06d alpha bravo value=%d\n" % (n, n * 7) for n in range(50_000))
    data += b"error: the end\n"
    digest = LogDigest()
    digest.feed(data)
    assert log._COMPILED  # the runs were searched by RE2
    assert _state(digest) == _state(_fed(OneByOne(), data))
    kept = digest.kept()
    assert kept[0].n == 1
    assert kept[-1].text == "error: the end"
    assert digest.lines.count == 50_001


def _fed(digest: LogDigest, data: bytes) -> LogDigest:
    digest.feed(data)
    return digest
