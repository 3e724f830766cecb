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
    assert header(inline)["delivery"] == "inline"
    assert links(inline) == []
    spilled = call(server, "notes_context", inline_threshold_bytes=64, **arguments)
    assert header(spilled)["delivery"] == "file"
    (uri,) = links(spilled)
    full = (store.root / uri.removeprefix("agentout://spill/")).read_text()
    assert "id=budgets" in full
    monkeypatch.setenv("AGENTOUT_INLINE_THRESHOLD", "64")
    assert header(call(server, "notes_context", **arguments))["delivery"] == "file"
    wide = call(server, "notes_context", inline_threshold_bytes=10**6, **arguments)
    assert header(wide)["delivery"] == "inline"
