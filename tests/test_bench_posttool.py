"""bench_posttool's payloads are what it says: each about the size asked for, each one
the hook answers within the budget (the bench times them; here nothing is timed)."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from agentout.agents.claude_mcp import decide_post
from agentout.tokens import get_tokenizer

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_payloads_are_answered_within_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    bench = importlib.import_module("bench_posttool")
    payloads = bench.payloads(60_000)
    assert len(payloads) == 3
    for data in payloads.values():
        assert 60_000 <= len(data) <= 120_000  # JSON in JSON: quotes escaped once more
        answer = decide_post(json.loads(data), config={})
        assert answer is not None
        assert bench._within_budget(json.dumps(answer).encode())
    count = get_tokenizer(None).count
    assert count(json.loads(next(iter(payloads.values())))["tool_response"]) > bench.BUDGET
