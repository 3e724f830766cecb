"""``read_output``, called through the SDK's own client, in process."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp_support import (
    call,
    make_server,
    text_tokens,
    texts,
)

from agentout.formats.raw import closing_fields
from agentout.store.spill import SpillStore
from agentout.tokens import count


@pytest.mark.parametrize(
    "ref",
    [
        "/etc/passwd",
        "../../etc/passwd",
        "agentout://spill/../events.jsonl",
        "20250101-run-0123456789abcdef.log",
    ],
)
def test_read_output_reads_only_the_spill_store(project: Path, store: SpillStore, ref: str) -> None:
    result = call(make_server(project, store), "read_output", ref=ref)
    assert result.is_error
    assert ("spill" in texts(result)) or ("not a file agentout spilled" in texts(result))


def test_read_output_names_its_own_parameters(project: Path, store: SpillStore) -> None:
    spilled = store.write_text("a\nb\n", kind="run", suffix=".log")
    result = call(make_server(project, store), "read_output", ref=spilled.ref, lines="3-1")
    assert result.is_error
    assert "lines '3-1': expected A:B" in texts(result)


def test_error_results_keep_to_the_budget(project: Path, store: SpillStore) -> None:
    long_ref = "x" * 4000
    result = call(make_server(project, store), "read_output", ref=long_ref, max_tokens=200)
    assert result.is_error
    assert count(texts(result)) <= 200


def test_read_output_follows_the_next_of_a_long_line_in_parts(
    project: Path, store: SpillStore
) -> None:
    text = "short\n" + "word " * 40_000 + "\nend\n"
    spilled = store.write_text(text, kind="run", suffix=".log")
    server = make_server(project, store)
    arguments: dict[str, Any] = {"ref": spilled.ref, "max_tokens": 600}
    parts_seen = []
    for _ in range(4):  # follow each page's next, as an agent would
        page = call(server, "read_output", **arguments)
        assert not page.is_error
        assert text_tokens(page) <= 600
        following = closing_fields(texts(page)).get("next")
        if following is None:
            break
        arguments["lines"] = following.split("--lines ")[1].split()[0]
        arguments["part"] = (
            int(following.split("--part ")[1].split()[0]) if "--part" in following else 1
        )
        parts_seen.append(arguments["part"])
    assert max(parts_seen) >= 2, "a long line is paged in parts"
