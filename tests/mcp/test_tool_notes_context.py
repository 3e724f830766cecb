"""``notes_context``, called through the SDK's own client, in process."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcp_support import (
    call,
    header,
    links,
    make_server,
    text_tokens,
    texts,
)

from agentout.formats.records import parse
from agentout.store.spill import SpillStore


def test_notes_context_warns_first_and_fits(project: Path, store: SpillStore) -> None:
    result = call(
        make_server(project, store),
        "notes_context",
        directory="vault",
        query="exact token count",
        with_body=True,
        max_tokens=600,
    )
    assert not result.is_error
    assert text_tokens(result) <= 600
    rows = parse(texts(result))
    assert rows[1][0] == "W"
    assert any(kind == "N" for kind, _ in rows)


def test_notes_context_needs_notes_or_a_query(project: Path, store: SpillStore) -> None:
    result = call(make_server(project, store), "notes_context", directory="vault")
    assert result.is_error
    assert "notes=[ID, ...], or find them with query=TEXT" in texts(result)


def test_the_inline_threshold_is_per_call_with_the_environment_as_default(
    project: Path, store: SpillStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = make_server(project, store)
    arguments = {"directory": "vault", "notes": ["budgets"], "max_tokens": 4000}
    inline = call(server, "notes_context", **arguments)
    assert "ref" not in header(inline)  # the page as `agentout notes context` prints it
    assert links(inline) == []
    spilled = call(server, "notes_context", inline_threshold_bytes=64, **arguments)
    name = header(spilled)["ref"]  # the same page, naming the complete one it kept
    assert links(spilled) == [f"agentout://spill/{name}"]
    full = (store.root / name).read_text()
    assert "id=budgets" in full
    monkeypatch.setenv("AGENTOUT_INLINE_THRESHOLD", "64")
    assert "ref" in header(call(server, "notes_context", **arguments))
    wide = call(server, "notes_context", inline_threshold_bytes=10**6, **arguments)
    assert "ref" not in header(wide)
