"""Hypothesis strategies shared by the format tests: results with ids, views and kinds."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from agentout import Record, Result

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**12), max_value=10**12)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=40)
    | st.sampled_from(["true", "7", "a,b", "x\ny", 'q"', "#hash", "\t", " ", "🔥 ok"])
)
json_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
field_names = st.text(min_size=1, max_size=8).filter(lambda k: k not in ("id", "_kind"))


@st.composite
def results(draw: st.DrawFn, *, flat: bool = False, max_records: int = 8) -> Result:
    """Records with a unique ``id`` in every view, 1-3 views each, some kinds, some forced.

    ``flat=True``: kind R, scalar values, the same keys in every fullest view, and maybe
    a terse view of the first few keys (what auto offers CSV for).
    """
    count = draw(st.integers(min_value=0, max_value=max_records))
    records = []
    if flat:
        keys = draw(st.lists(field_names, min_size=1, max_size=4, unique=True))
        terse = draw(st.integers(min_value=0, max_value=len(keys)))  # keys in a terse view
        for i in range(count):
            full = {"id": f"r{i}", **{k: draw(_flat_scalars) for k in keys}}
            short = dict(list(full.items())[: 1 + terse])
            records.append(Record.of(short, full) if short != full else Record.of(full))
        return Result.of(records, header={"mode": "test"})
    for i in range(count):
        views: list[dict[str, Any]] = []
        for _ in range(draw(st.integers(min_value=1, max_value=3))):
            extra = draw(st.dictionaries(field_names, json_values, max_size=3))
            views.append({"id": f"r{i}", **(views[-1] if views else {}), **extra})
        forced = draw(st.booleans()) if i == 0 else False
        kind = "S" if forced else draw(st.sampled_from("RRRE"))
        records.append(Record.of(*views, kind=kind, forced=forced))
    header = draw(st.dictionaries(field_names, _scalars, max_size=2))
    summary = draw(st.dictionaries(field_names, _scalars, max_size=2))
    return Result.of(records, header=header, summary=summary)


_flat_scalars = (
    st.booleans()
    | st.integers(min_value=-(10**9), max_value=10**9)
    | st.text(min_size=1, max_size=30)
    | st.sampled_from(["a,b", "x\ny", '"q"', "#1", "true", "1.5"])
)

budgets = st.one_of(st.none(), st.integers(min_value=0, max_value=600))
