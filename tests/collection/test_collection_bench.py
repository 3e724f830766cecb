"""bench/bench_records.py still runs: a tiny log, no timing asserted."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


def test_bench_records_runs_on_a_tiny_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    monkeypatch.setenv("AGENTOUT_BENCH_RECORDS", "300")
    monkeypatch.setenv("AGENTOUT_BENCH_QUICK", "1")
    bench = importlib.import_module("bench_records")
    log = tmp_path / "log.jsonl"
    size = bench.write_log(log, 50)
    rows = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(rows) == 50
    assert 200 < size / 50 < 400  # about 300 bytes a record, as the 1M / 300 MB
    section = bench.main()
    assert section.startswith("## records: querying a large JSONL file")
    assert "300 records" in section
    assert "| exact match: level = error | agentout records |" in section
