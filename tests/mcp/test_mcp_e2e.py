"""``agentout serve`` as a real process, driven by the SDK's own client over stdio and over
streamable HTTP on 127.0.0.1: every tool answers, bad input is an error result, and the
server keeps serving the next call."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters
from mcp_support import http_server, links, served_store, text_tokens, texts

from agentout.mcp.child import SERVE
from agentout.tokens import count
from processes import without_agentout_settings

TIMEOUT = 60  # seconds for a whole session: a hung server fails the test instead
NINE_MIB = "x" * (9 << 20)


def child_env(spill_dir: Path) -> dict[str, str]:
    env = without_agentout_settings()
    env["AGENTOUT_SPILL_DIR"] = str(spill_dir)
    env["AGENTOUT_CACHE_DIR"] = str(spill_dir.parent / "cache")
    return env


async def scenario(client: Client, project: Path, spill_dir: Path) -> None:
    """One session: each tool, then each kind of bad input, each followed by a good call."""
    listed = {tool.name for tool in (await client.list_tools()).tools}
    assert listed == {
        "count_tokens",
        "read_output",
        "cleanup_temp_files",
        "query_records",
        "notes_context",
        "run_tests",
        "run_command",
    }

    counted = await client.call_tool("count_tokens", {"text": "hello world"})
    assert counted.structured_content["tokens"] == count("hello world")

    queried = await client.call_tool(
        "query_records", {"paths": ["events.jsonl"], "max_tokens": 250}
    )
    assert text_tokens(queried) <= 250
    # the text names the file it kept; the link to it comes where the budget leaves room
    uri = queried.meta["agentout"]["spilled"][0]["uri"]
    assert links(queried) in ([], [uri])
    resource = await client.read_resource(uri)
    spilled = served_store(spill_dir, project) / uri.removeprefix("agentout://spill/")
    assert resource.contents[0].text == spilled.read_text()
    assert uri in [str(r.uri) for r in (await client.list_resources()).resources]

    page = await client.call_tool("read_output", {"ref": uri, "lines": "10:12"})
    assert "R line=10 id=9 level=info" in texts(page)

    notes = await client.call_tool(
        "notes_context", {"directory": "vault", "query": "budgets", "max_tokens": 400}
    )
    assert not notes.is_error
    assert text_tokens(notes) <= 400

    tests = await client.call_tool("run_tests", {"tests": ["suite/test_small.py"]})
    assert "status=FAIL" in texts(tests)

    echoed = await client.call_tool("run_command", {"command": ["echo", "a b; c"]})
    assert texts(echoed) == "a b; c\n"

    dry = await client.call_tool("cleanup_temp_files", {"dry_run": True})
    assert dry.structured_content["dry_run"] is True

    bad_calls: list[tuple[str, dict[str, Any], str]] = [
        ("no_such_tool", {}, "Unknown tool: no_such_tool"),
        ("read_output", {}, "Field required"),
        ("read_output", {"ref": 42}, "Input should be a valid string"),
        ("query_records", {"paths": ["/etc/passwd"]}, "outside the allowed roots"),
        ("read_output", {"ref": "/etc/passwd"}, "not in the spill store"),
        ("count_tokens", {"text": NINE_MIB}, "String should have at most 8388608 characters"),
        ("run_command", {"command": ["rm", "-rf", "/"]}, "rm: not on the allowlist"),
    ]
    for name, arguments, message in bad_calls:
        result = await client.call_tool(name, arguments)
        assert result.is_error, name
        assert message in texts(result), (name, texts(result)[:300])
        after = await client.call_tool("count_tokens", {"text": "still here"})
        assert after.structured_content["tokens"] == count("still here")


def test_stdio_session(project: Path, spill_dir: Path) -> None:
    parameters = StdioServerParameters(
        command=SERVE[0],
        args=[*SERVE[1:], "--root", str(project), "--allow-commands", "echo"],
        env=child_env(spill_dir),
        cwd=str(project),
    )

    async def go() -> None:
        with anyio.fail_after(TIMEOUT):
            async with Client(parameters, read_timeout_seconds=30) as client:
                await scenario(client, project, spill_dir)

    anyio.run(go)


def test_streamable_http_session(project: Path, spill_dir: Path) -> None:
    args = ["--root", str(project), "--allow-commands", "echo"]
    with http_server(args, child_env(spill_dir)) as url:
        assert url.startswith("http://127.0.0.1:")

        async def go() -> None:
            with anyio.fail_after(TIMEOUT):
                async with Client(url, read_timeout_seconds=30) as client:
                    await scenario(client, project, spill_dir)
                async with Client(url, read_timeout_seconds=30) as again:  # a second client
                    result = await again.call_tool("count_tokens", {"text": "again"})
                    assert result.structured_content["tokens"] == 1

        anyio.run(go)


def test_the_child_runs_with_this_interpreter() -> None:
    assert SERVE[0] == sys.executable
