"""Fixtures shared by the whole suite."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reference_tiktoken import reference_encoding

ReferenceTiktoken = Callable[[str], Any]


@pytest.fixture(scope="session")
def reference_tiktoken(tmp_path_factory: pytest.TempPathFactory) -> ReferenceTiktoken:
    """``reference_tiktoken(name)``: tiktoken's own Encoding, loaded offline, hash-checked.

    The reference every exact count is compared with; it shares no code with agentout.
    """
    cache = tmp_path_factory.mktemp("tiktoken-cache")
    loaded: dict[str, Any] = {}

    def get(name: str) -> Any:
        if name not in loaded:
            loaded[name] = reference_encoding(name, cache)
        return loaded[name]

    return get


@pytest.fixture(autouse=True)
def _private_ledger(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test writes the user's savings ledger (agentout.ledger.book): the session has its own,
    written before a command returns (the detached recorder is tested on its own)."""
    path = tmp_path_factory.getbasetemp() / "ledger.sqlite3"
    monkeypatch.setenv("AGENTOUT_LEDGER_DB", str(path))
    monkeypatch.setenv("AGENTOUT_LEDGER_SYNC", "1")


@pytest.fixture(autouse=True)
def _private_spill(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No test writes the user's spill store (``agentout fit`` keeps what it leaves out):
    the session has its own, unless a test points AGENTOUT_SPILL_DIR elsewhere."""
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path_factory.getbasetemp() / "spill"))
