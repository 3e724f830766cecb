"""A real third-party MCP server's results budgeted from the client side.

The reference filesystem server (``@modelcontextprotocol/server-filesystem``, installed
from npm into a temporary directory) is started over stdio with the MCP SDK's client on
a tree generated here. Each result of 100k+ tokens is handed to ``agentout hook claude``
(a process, JSON on stdin) in the form Claude Code passes it (``JSON.stringify`` of the
structured content, which this server always returns), and the answer must be within the
budget, with every line of the complete result given back by ``agentout show``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from agentout.tokens import get_tokenizer

PACKAGE = "@modelcontextprotocol/server-filesystem@2026.8.31"
AGENTOUT = [sys.executable, "-c", "from agentout.cli import main; main()"]
COUNT = get_tokenizer(None).count
BUDGET = 5000  # the default: no config file


@pytest.fixture(scope="session")
def filesystem_server(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The server's entry script, installed from npm (skipped only if npm cannot)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed to install @modelcontextprotocol/server-filesystem")
    prefix = tmp_path_factory.mktemp("npm")
    done = subprocess.run(
        [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", PACKAGE],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    script = prefix / "node_modules" / "@modelcontextprotocol" / "server-filesystem" / "dist"
    if done.returncode != 0 or not (script / "index.js").exists():
        last = (done.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"npm could not install {PACKAGE}: {last}")
    return script / "index.js"


@pytest.fixture(scope="session")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A text file of about 130k tokens and a tree of 7,500 files."""
    root = tmp_path_factory.mktemp("tree")
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    lines = [
        f"{i:05d} {words[i % 8]} {words[(i * 3) % 8]} record={i * 7919 % 100003} "
        f"path=src/pkg_{i % 97}/mod_{i % 13}.py status={'ok' if i % 11 else 'FAILED'}"
        for i in range(8000)
    ]
    (root / "big.txt").write_text("\n".join(lines), encoding="utf-8")  # no newline at the end
    for d in range(50):
        folder = root / "data" / f"dataset_{d:02d}"
        folder.mkdir(parents=True)
        for i in range(150):
            (folder / f"sample_{d:02d}_{i:03d}_measurements.csv").touch()
    return root


def _call(script: Path, root: Path, tool: str, arguments: dict[str, Any]) -> Any:
    parameters = StdioServerParameters(command="node", args=[str(script), str(root)])
    found: list[Any] = []

    async def go() -> None:
        with anyio.fail_after(120):
            async with Client(parameters, read_timeout_seconds=60) as client:
                found.append(await client.call_tool(tool, arguments))

    anyio.run(go)
    return found[0]


def _as_claude_code_passes_it(result: Any) -> Any:
    """``tool_response`` as Claude Code builds it: ``JSON.stringify(structuredContent)``
    when there is structured content, else the content blocks."""
    assert not result.is_error, result
    if result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))
    return [block.model_dump(mode="json", exclude_none=True) for block in result.content]


def _hook(payload: dict[str, Any], env: dict[str, str]) -> Any:
    done = subprocess.run(
        [*AGENTOUT, "hook", "claude"],
        input=json.dumps(payload).encode(),
        capture_output=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0
    assert done.stderr == b"", done.stderr
    answer = json.loads(done.stdout)
    specific = answer["hookSpecificOutput"]
    assert specific["hookEventName"] == "PostToolUse"
    return specific["updatedMCPToolOutput"]


def _show_all(ref: str, env: dict[str, str]) -> str:
    """Every line of the spilled file, page after page, through ``agentout show``."""
    lines: list[str] = []
    start = 1
    while True:
        done = subprocess.run(
            [*AGENTOUT, "show", ref, "--lines", f"{start}:", "--max-tokens", "40000"],
            capture_output=True,
            env=env,
            timeout=120,
            check=True,
        )
        *page, footer = done.stdout.decode("utf-8").split("\n")[:-1]
        shown = re.search(r"shown=(\d+):(\d+)", footer)
        if shown is None:
            assert "shown=none" in footer, footer
            return "\n".join(lines)
        first, last = int(shown[1]), int(shown[2])
        assert first == start, footer
        assert len(page) == last - first + 1, footer
        lines.extend(page)
        start = last + 1


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_text_file", {"path": "big.txt"}),
        ("directory_tree", {"path": "data"}),
    ],
)
def test_filesystem_result_fits_and_comes_back_whole(
    filesystem_server: Path,
    tree: Path,
    tmp_path: Path,
    tool: str,
    arguments: dict[str, str],
) -> None:
    arguments = {key: str(tree / value) for key, value in arguments.items()}
    result = _call(filesystem_server, tree, tool, arguments)
    response = _as_claude_code_passes_it(result)
    assert isinstance(response, str)  # this server always sends structured content
    assert COUNT(response) >= 100_000
    complete = result.structured_content["content"]

    env = {
        **os.environ,
        "AGENTOUT_SPILL_DIR": str(tmp_path / "spill"),
        "AGENTOUT_CONFIG_DIR": str(tmp_path / "config"),
    }
    payload = {
        "session_id": "test",
        "hook_event_name": "PostToolUse",
        "tool_name": f"mcp__filesystem__{tool}",
        "tool_input": arguments,
        "tool_response": response,
        "tool_use_id": "toolu_01",
    }
    updated = _hook(payload, env)
    assert isinstance(updated, str)  # the same form: a string, and the same one-key object
    assert COUNT(updated) <= BUDGET
    shown = json.loads(updated)["content"]
    refs = re.findall(r"agentout show ([0-9a-f]{16})", shown)
    assert len(set(refs)) == 1, shown[-400:]

    assert _show_all(refs[0], env) == complete  # every line, byte for byte


def _transcript(path: Path, calls: list[tuple[str, Any]]) -> None:
    """A Claude Code transcript: each MCP call's tool_use, then its tool_result."""
    lines = []
    for n, (tool, content) in enumerate(calls):
        use = {"type": "tool_use", "id": f"toolu_{n}", "name": tool, "input": {}}
        result = {"type": "tool_result", "tool_use_id": f"toolu_{n}", "content": content}
        for role, block in (("assistant", use), ("user", result)):
            entry = {
                "type": role,
                "sessionId": "s1",
                "cwd": "/work/app",
                "timestamp": "2026-11-20T10:00:00Z",
                "message": {"role": role, "content": [block]},
            }
            lines.append(json.dumps(entry))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_discover_reports_the_mcp_results_that_would_gain(
    filesystem_server: Path, tree: Path, tmp_path: Path
) -> None:
    big = _call(filesystem_server, tree, "read_text_file", {"path": str(tree / "big.txt")})
    small = _call(filesystem_server, tree, "list_allowed_directories", {})
    transcript = tmp_path / "session.jsonl"
    _transcript(
        transcript,
        [
            ("mcp__filesystem__read_text_file", _as_claude_code_passes_it(big)),
            ("mcp__filesystem__list_allowed_directories", _as_claude_code_passes_it(small)),
            ("mcp__agentout__count_tokens", _as_claude_code_passes_it(big)),  # left alone
        ],
    )
    env = {
        **os.environ,
        "AGENTOUT_SPILL_DIR": str(tmp_path / "spill"),
        "AGENTOUT_CONFIG_DIR": str(tmp_path / "config"),
    }
    done = subprocess.run(
        [*AGENTOUT, "discover", str(transcript), "--format", "json"],
        capture_output=True,
        env=env,
        timeout=120,
        check=True,
    )
    report = json.loads(done.stdout)
    assert not (tmp_path / "spill").exists()  # discover only reads
    assert report["mcp_calls"] == 3
    [gained] = report["mcp_tools"]
    assert gained["tool"] == "mcp__filesystem__read_text_file"
    assert gained["raw_tokens"] == COUNT(_as_claude_code_passes_it(big))
    # exactly what the hook answers for the same result
    payload = {
        "hook_event_name": "PostToolUse",
        "tool_name": gained["tool"],
        "tool_response": _as_claude_code_passes_it(big),
    }
    assert gained["delivered_tokens"] == COUNT(_hook(payload, env))
    assert gained["delivered_tokens"] <= BUDGET
