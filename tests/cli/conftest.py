"""Shared by the CLI tests: the reference token count, from tiktoken itself."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

Count = Callable[..., int]


@pytest.fixture(scope="session")
def tiktoken_count(reference_tiktoken: Callable[[str], Any]) -> Count:
    """``count(text, name="o200k_base")`` by tiktoken (loaded offline): not our code."""

    def count(text: str, name: str = "o200k_base") -> int:
        return len(reference_tiktoken(name).encode_ordinary(text))

    return count
