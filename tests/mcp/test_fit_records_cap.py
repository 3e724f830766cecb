"""A long list is made into records only as far as any budget could show: the text is
the one every record would give, and the header still counts them all."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentout.mcp import fit
from agentout.read.data import object_record
from agentout.records import Result
from agentout.store.spill import SpillStore


@pytest.mark.parametrize("budget", [200, 600, 2000])
def test_capped_records_pack_as_all_of_them(budget: int, tmp_path: Path) -> None:
    items = [{"id": i, "title": f"issue {i}", "state": "open"} for i in range(budget * 3)]
    limits = fit.Limits.of(budget, store=SpillStore(tmp_path))
    capped = fit._records(items, "items", budget)
    whole = Result.of([object_record(item) for item in items], header={"list": "items"})
    assert len(capped.records) == budget + 1 < len(items)
    assert capped.total == len(items)
    for share in (budget // 3, budget):
        assert fit._packed(capped, limits, share) == fit._packed(whole, limits, share)
    text = fit.fit_records({"items": items}, limits, "[the rest: agentout show X]\n")
    assert text is not None
    assert f" total={len(items)} " in text
