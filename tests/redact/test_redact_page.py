"""A page never shows a secret, whatever the stored file holds: one stored with
``--keep-secrets``, or by an agentout that did not redact. ``agentout show`` and the MCP
``read_output`` tool both page through ``agentout.store.page.page``."""

from __future__ import annotations

import io
import random
from pathlib import Path
from typing import Any

import anyio
import pytest
import secrets_corpus
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.redact import Redactor
from agentout.store.page import LineRange, page
from agentout.store.spill import SpillStore

TOKENS = secrets_corpus.planted_tokens(random.Random(13))
KEY_BODY = [f"MIIEpAIBAAKCAQEA{i:02d}" + "x9Y8z7W6v5U4t3S2r1Q0p" * 2 for i in range(6)]
LINES = [
    "build started",
    f"GH_TOKEN={TOKENS['github']}",
    f"curl -H 'Authorization: Bearer {TOKENS['bearer']}' https://api.example.com",
    f'  "password": "{TOKENS["password"]}",',
    "-----BEGIN RSA PRIVATE KEY-----",
    *KEY_BODY,
    "-----END RSA PRIVATE KEY-----",
    f"slack {TOKENS['slack']} done",
    "build finished: 3 warnings",
]
PLANTED = [TOKENS["github"], TOKENS["bearer"], TOKENS["password"], TOKENS["slack"], *KEY_BODY]


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SpillStore:
    monkeypatch.delenv("AGENTOUT_REDACT", raising=False)
    return SpillStore(tmp_path / "spill")


@pytest.fixture
def ref(store: SpillStore) -> str:
    """A file stored with its secrets, as --keep-secrets stores one."""
    return store.write_text("\n".join(LINES) + "\n", kind="run", suffix=".log").ref


def test_a_page_hides_what_the_file_holds(store: SpillStore, ref: str) -> None:
    stored = store.resolve(ref).read_text()
    assert all(value in stored for value in PLANTED)  # the file really holds them
    text = page(ref, store=store, max_tokens=None).text
    assert [value for value in PLANTED if value in text] == []
    assert "GH_TOKEN=[secret: github-token]" in text
    assert "[secret: private-key]" in text
    assert f"shown=1:{len(LINES)}]" in text  # every line, numbered as in the file
    assert "build finished: 3 warnings" in text


def test_a_page_in_the_middle_of_a_key_block_hides_its_body(store: SpillStore, ref: str) -> None:
    first = LINES.index("-----BEGIN RSA PRIVATE KEY-----") + 3
    text = page(ref, store=store, lines=LineRange(first, first + 2), max_tokens=None).text
    assert [value for value in PLANTED if value in text] == []
    assert f"shown={first}:{first + 2}]" in text
    assert text.startswith("\n\n\n[agentout:")  # the marker is on the first line of the body


def test_grep_cannot_find_a_secret_by_its_value(store: SpillStore, ref: str) -> None:
    text = page(ref, store=store, grep=TOKENS["github"][:12], max_tokens=None).text
    assert text == "[agentout: shown=none]\n"
    shown = page(ref, store=store, grep="secret: github", max_tokens=None).text
    assert shown == "GH_TOKEN=[secret: github-token]\n[agentout: shown=2:2]\n"


def test_off_shows_the_file_as_stored(
    store: SpillStore, ref: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTOUT_REDACT", "0")
    assert TOKENS["github"] in page(ref, store=store, max_tokens=None).text


def test_the_mcp_read_output_tool_hides_them_too(
    tmp_path: Path, store: SpillStore, ref: str
) -> None:
    from agentout.mcp.guard import Allowlist, Roots
    from agentout.mcp.server import ServerConfig, create_server

    project = tmp_path / "project"
    project.mkdir()
    server = create_server(ServerConfig(Roots.of([project]), Allowlist.parse(None), store))

    async def read() -> Any:
        return await server.call_tool("read_output", {"ref": ref, "max_tokens": 4000})

    result = anyio.run(read)
    text = "".join(block.text for block in result.content if block.type == "text")
    assert "GH_TOKEN=[secret: github-token]" in text
    assert [value for value in PLANTED if value in text] == []


@settings(max_examples=50, deadline=None)
@given(
    data=st.binary(max_size=3000).map(lambda b: b + b"\n" + "\n".join(LINES).encode()),
    size=st.integers(min_value=1, max_value=5000),
)
def test_the_reader_gives_the_redacted_bytes_whatever_is_read(data: bytes, size: int) -> None:
    redactor = Redactor({})
    whole, _ = redactor.redact_bytes(data)
    reader = redactor.reader(io.BytesIO(data))
    pieces = []
    while piece := reader.read(size):
        pieces.append(piece)
    assert b"".join(pieces) == whole
    lines = redactor.reader(io.BytesIO(data)).readlines()
    assert b"".join(lines) == whole
    assert len(lines) == len(io.BytesIO(data).readlines())
