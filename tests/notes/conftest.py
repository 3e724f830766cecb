"""Shared by the notes tests: the example vault, a private cache, and small vaults."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from notes_support import MakeVault


@pytest.fixture(autouse=True)
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own cache: never the user's, never shared between tests."""
    directory = tmp_path / "cache"
    monkeypatch.setenv("AGENTOUT_CACHE_DIR", str(directory))
    return directory / "notes"


@pytest.fixture
def make_vault(tmp_path: Path) -> MakeVault:
    """Write ``{relative path: text or bytes}`` under a fresh folder and return it."""

    def make(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / "vault"
        for relative, content in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        root.mkdir(exist_ok=True)
        return root

    return make


@pytest.fixture(scope="session")
def reference_count(reference_tiktoken: Callable[[str], Any]) -> Callable[[str], int]:
    """The o200k_base count by tiktoken itself (the suite's shared reference)."""
    encoding = reference_tiktoken("o200k_base")
    return lambda text: len(encoding.encode_ordinary(text))
