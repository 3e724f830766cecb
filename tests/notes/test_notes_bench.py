"""The benchmark's generated vault is a real one: every note loads, links resolve."""

from __future__ import annotations

import importlib
from pathlib import Path
from types import ModuleType

import pytest
from notes_support import ROOT

from agentout.sources.notes import load_vault


@pytest.fixture
def bench_notes(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(ROOT / "bench"))
    return importlib.import_module("bench_notes")


def test_generated_vault_loads_whole_with_links(bench_notes: ModuleType, tmp_path: Path) -> None:
    bench_notes.generate(tmp_path, 120)
    vault = load_vault(tmp_path, cache=False)
    assert vault.problems == ()
    assert len(vault.notes) == 120
    via = {edge.via for edge in vault.graph.edges}
    assert via == {"typed", "wiki", "markdown"}
    assert len(vault.graph.dangling) == 3  # notes 0, 50 and 100
    assert all(edge.target != "not a link" for edge in vault.graph.edges)  # in a code block
    again = tmp_path / "again"
    bench_notes.generate(again, 120)
    assert (again / "area-07" / "note-00007.md").read_bytes() == (
        tmp_path / "area-07" / "note-00007.md"
    ).read_bytes()
