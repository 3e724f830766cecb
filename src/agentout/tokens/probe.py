"""Searching for the most that fits, with as few exact checks as possible.

Every budget here is decided by rendering and counting exactly, and a check costs a
render, so the searches are shared: ``bisect`` narrows a known fitting/not-fitting pair
to adjacent values; ``gallop`` grows from a fitting value by doubling steps first, so no
probe costs much more than the answer itself. Neither assumes more than the pair it
keeps ("lo fits, hi does not"): a count need not grow with length (a BPE merge can make a
longer text shorter), so they find a boundary, not a global maximum.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["bisect", "gallop"]


def bisect(fits: Callable[[int], bool], lo: int, hi: int) -> int:
    """Given fits(lo) (or lo a sentinel below every value) and not fits(hi), return a
    value in [lo, hi) that fits while the next one up does not."""
    while hi - lo > 1:
        middle = (lo + hi) // 2
        if fits(middle):
            lo = middle
        else:
            hi = middle
    return lo


def gallop(fits: Callable[[int], bool], start: int, limit: int) -> int:
    """Given fits(start), the largest value found in [start, limit] that fits: try
    start+1, +2, +4, ... up to ``limit``, then bisect between the last two probes."""
    good, step = start, 1
    while good < limit:
        probe = min(limit, good + step)
        if not fits(probe):
            return bisect(fits, good, probe)
        good, step = probe, step * 2
    return good
