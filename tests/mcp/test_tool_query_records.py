"""``query_records``, called through the SDK's own client, in process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp_support import (
    call,
    header,
    links,
    make_server,
    run,
    text_tokens,
    texts,
)

from agentout.formats.records import parse
from agentout.store.spill import SpillStore


def test_query_records_spills_the_matching_set_and_links_it(
    project: Path, store: SpillStore
) -> None:
    server = make_server(project, store)
    result = call(
        server, "query_records", paths=["events.jsonl"], where=["level=error"], max_tokens=300
    )
    assert not result.is_error
    assert text_tokens(result) <= 300
    head = header(result)
    assert head["total"] == 58  # ids 0, 7, ..., 399
    (uri,) = links(result)
    name = uri.removeprefix("agentout://spill/")
    rows = [json.loads(line) for line in (store.root / name).read_text().splitlines()]
    assert [row["id"] for row in rows] == list(range(0, 400, 7)), "the complete matching set"
    meta = result.meta["agentout"]
    assert meta["matched"] == 58
    assert meta["spilled"][0]["uri"] == uri

    async def read() -> Any:
        from mcp import Client

        async with Client(server) as client:
            listed = await client.list_resources()
            return listed, await client.read_resource(uri)

    listed, contents = run(read)
    assert uri in [str(resource.uri) for resource in listed.resources]
    assert contents.contents[0].text == (store.root / name).read_text()
    assert contents.contents[0].mime_type == "application/jsonl"

    page = call(server, "read_output", ref=uri, grep='"id": 3', max_tokens=200)
    assert not page.is_error
    assert text_tokens(page) <= 200
    found = [fields for kind, fields in parse(texts(page)) if kind == "R"]
    matching = [i for i in range(0, 400, 7) if str(i).startswith("3")]
    assert 3 <= len(found) < len(matching)
    assert [row["id"] for row in found] == matching[: len(found)], "the first matches, whole"
    footer = parse(texts(page))[-1][1]
    assert footer["next"].startswith(f"agentout show {name} --lines {found[-1]['line'] + 1}:")
    by_lines = call(server, "read_output", ref=name, lines="2:3")
    assert [f["id"] for k, f in parse(texts(by_lines)) if k == "R"] == [7, 14]


def test_query_records_over_a_knowledge_base(project: Path, store: SpillStore) -> None:
    result = call(make_server(project, store), "query_records", paths=["kb"], query="sql injection")
    assert not result.is_error
    records = [fields for kind, fields in parse(texts(result)) if kind == "R"]
    assert records
    assert "SQL" in json.dumps(records[0])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"paths": ["/etc/passwd"]}, "outside the allowed roots"),
        ({"paths": ["../*"]}, "outside the allowed roots"),
        ({"paths": ["nothing-*.json"]}, "no files match this pattern"),
        ({"paths": []}, "List should have at least 1 item"),
        ({"paths": "events.jsonl"}, "Input should be a valid list"),
        ({"paths": ["events.jsonl"], "mode": "loud"}, "Input should be 'agent' or 'verbose'"),
        ({"paths": ["events.jsonl"], "max_tokens": 10}, "greater than or equal to 200"),
        ({"paths": ["events.jsonl"], "filter": "id >"}, "--filter"),
    ],
)
def test_query_records_refuses_bad_input(
    project: Path, store: SpillStore, arguments: dict[str, Any], message: str
) -> None:
    result = call(make_server(project, store), "query_records", **arguments)
    assert result.is_error
    assert message in texts(result)


def test_query_records_never_reads_the_servers_stdin(
    project: Path, store: SpillStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A path '-' in the root is that file (of no known kind), never standard input."""
    import io
    import sys

    (project / "-").write_text('{"from": "the file"}\n')
    stdin = io.TextIOWrapper(io.BytesIO(b'{"marker": "read-from-stdin"}\n'))
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.chdir(project)
    result = call(make_server(project, store), "query_records", paths=["-"])
    assert "read-from-stdin" not in texts(result)
    assert result.is_error
    assert "./-: unknown kind of file" in texts(result)
    assert stdin.read() == '{"marker": "read-from-stdin"}\n'


def test_query_records_names_the_kept_set_by_its_id(project: Path, store: SpillStore) -> None:
    server = make_server(project, store)
    result = call(
        server, "query_records", paths=["events.jsonl"], where=["level=error"], max_tokens=300
    )
    ident = header(result)["ref"]
    uri = result.meta["agentout"]["spilled"][0]["uri"]
    assert uri == f"agentout://spill/records-{ident}.jsonl"
    assert links(result) in ([], [uri])  # the link, where the budget leaves it room
    # the last line pages on as `agentout records` says it, which reads as read_output's
    # arguments: ref=ID records=N:
    (_, summary) = parse(texts(result))[-1]
    assert summary["more"] == f"agentout show {ident} --records 4:"
    page = call(server, "read_output", ref=ident, records="4:5")
    rows = [fields for kind, fields in parse(texts(page)) if kind == "R"]
    assert [row["id"] for row in rows] == [21, 28]  # the 4th and 5th of 0, 7, 14, ...
    mixed = call(server, "read_output", ref=ident, records="4:", lines="1:2")
    assert mixed.is_error
    assert "use one or the other" in texts(mixed)
