"""The MCP load bench still runs (quick mode: 100 calls from 4 clients); no timing asserted."""

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
    assert section.rstrip().endswith(": PASS**")
