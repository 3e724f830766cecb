"""The MCP benches still run (quick mode: 100 calls from 4 clients, 100 over two replicas,
the hostile inputs at a quarter of their size); their verdicts asserted, no timing."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_the_load_bench_runs_and_passes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.setenv("AGENTOUT_BENCH_QUICK", "1")
    section = importlib.import_module("bench_mcp").main()
    assert section.startswith("## MCP server under load")
    assert "100 calls answered" in section
    assert "errors: 0 (none); pages over their budget: 0." in section
    assert "## MCP replicas behind a round-robin client" in section
    assert "errors, lost or mismatched results: 0 (none)." in section
    assert "every spilled reference read through the other: 0 errors" in section
    assert section.split("## Hostile input")[0].count(": PASS**") == 2
    assert "## Hostile input for the MCP tools" in section  # its verdict is timed: bench only
