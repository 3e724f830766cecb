"""``count_tokens``, called through the SDK's own client, in process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp_support import (
    call,
    make_server,
    texts,
)

from agentout.store.spill import SpillStore
from agentout.tokens import count


def test_count_tokens_of_a_text_and_of_a_file(project: Path, store: SpillStore) -> None:
    server = make_server(project, store)
    sample = "The quick brown fox jumps over the lazy dog.\n" * 3
    result = call(server, "count_tokens", text=sample)
    assert result.structured_content == {
        "tokens": count(sample),
        "chars": len(sample),
        "tokenizer": "o200k_base",
        "source": "text",
    }
    assert texts(result).startswith(f"{count(sample)} tokens (o200k_base)")
    on_file = call(server, "count_tokens", path="events.jsonl", tokenizer="gpt-4")
    content = (project / "events.jsonl").read_text()
    assert on_file.structured_content["tokens"] == count(content, "cl100k_base")
    assert on_file.structured_content["tokenizer"] == "cl100k_base"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "give either text or path"),
        ({"text": "a", "path": "events.jsonl"}, "give either text or path"),
        ({"text": "a", "tokenizer": "nope"}, "unknown tokenizer 'nope'"),
        ({"path": "missing.txt"}, "missing.txt: no such file"),
        ({"path": "/etc/passwd"}, "outside the allowed roots"),
        ({"path": "../../../etc/passwd"}, "outside the allowed roots"),
        ({"path": "agentout://spill/../../etc/passwd"}, "not in the spill store"),
    ],
)
def test_count_tokens_refuses_bad_input(
    project: Path, store: SpillStore, arguments: dict[str, Any], message: str
) -> None:
    result = call(make_server(project, store), "count_tokens", **arguments)
    assert result.is_error
    assert message in texts(result)


def test_a_count_that_cut_a_run_says_approx(project: Path, store: SpillStore) -> None:
    (project / "word.txt").write_text("a" * 3_000_000)  # no token boundary in 2 MiB
    result = call(make_server(project, store), "count_tokens", path="word.txt")
    assert not result.is_error
    assert result.structured_content["approx"] is True
    assert " tokens (approx) (o200k_base)" in texts(result)
    exact = call(make_server(project, store), "count_tokens", path="events.jsonl")
    assert "approx" not in exact.structured_content
