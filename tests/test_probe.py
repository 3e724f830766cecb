"""The shared searches: each keeps "lo fits, hi does not" and never probes past its range."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from agentout.tokens.probe import bisect, gallop


@given(st.lists(st.booleans(), min_size=1, max_size=200))
def test_bisect_finds_a_boundary(flags: list[bool]) -> None:
    flags[0] = True
    flags.append(False)
    probed: list[int] = []

    def fits(i: int) -> bool:
        probed.append(i)
        return flags[i]

    found = bisect(fits, 0, len(flags) - 1)
    assert flags[found]
    assert not flags[found + 1]
    assert all(0 < i < len(flags) - 1 for i in probed)


@given(st.integers(0, 500), st.integers(0, 500))
def test_gallop_finds_the_largest_under_a_threshold(threshold: int, limit: int) -> None:
    probed: list[int] = []

    def fits(i: int) -> bool:
        probed.append(i)
        return i <= threshold

    found = gallop(fits, 0, limit)
    assert found == min(threshold, limit)
    assert all(0 < i <= limit for i in probed)
    # doubling then bisecting: logarithmic, not linear
    assert len(probed) <= 2 * (limit.bit_length() + 1)
