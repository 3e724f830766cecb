"""Helpers for the MCP tests: a server over a project, one call through the SDK's client.

``call(server, tool, **arguments)`` runs one tool call through the SDK's own in-process
client (``mcp.Client``), which validates results against the tools' output schemas.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult

from agentout.mcp.child import serve_http
from agentout.mcp.guard import Allowlist, Roots
from agentout.mcp.server import ServerConfig, create_server
from agentout.store.spill import SpillStore
from agentout.tokens import count

T = TypeVar("T")


def run(factory: Callable[[], Coroutine[Any, Any, T]]) -> T:
    return anyio.run(factory)


def make_server(
    project: Path, store: SpillStore, allow: str | None = None, **config: Any
) -> MCPServer[Any]:
    return create_server(ServerConfig(Roots.of([project]), Allowlist.parse(allow), store, **config))


def call(server: MCPServer[Any], tool: str, **arguments: Any) -> CallToolResult:
    async def go() -> CallToolResult:
        async with Client(server) as client:
            await client.list_tools()  # so the client validates structured content
            return await client.call_tool(tool, arguments)

    return run(go)


def texts(result: CallToolResult) -> str:
    return "".join(block.text for block in result.content if block.type == "text")


def text_tokens(result: CallToolResult) -> int:
    """Tokens of every text block the client received, counted exactly (o200k_base)."""
    return sum(count(block.text) for block in result.content if block.type == "text")


def structured_tokens(result: CallToolResult) -> int:
    value = result.structured_content
    return count(json.dumps(value, ensure_ascii=False, separators=(",", ":")))


def links(result: CallToolResult) -> list[str]:
    return [str(block.uri) for block in result.content if block.type == "resource_link"]


# -- a real server process ----------------------------------------------------------------


def http_server(
    args: list[str], env: dict[str, str], wait: float = 30.0
) -> contextlib.AbstractContextManager[str]:
    """``agentout serve --http 0 ARGS`` as a child process; yields its URL; always ended."""
    return serve_http(args, env, wait=wait)


def header(result: CallToolResult) -> dict[str, Any]:
    """The fields of the result's H line (agentout's records format)."""
    from agentout.formats.records import parse

    rows = parse(texts(result))
    assert rows[0][0] == "H"
    return rows[0][1]


def tools(server: MCPServer[Any]) -> dict[str, Any]:
    """The server's tools as a client lists them, by name."""

    async def go() -> Any:
        async with Client(server) as client:
            return (await client.list_tools()).tools

    return {tool.name: tool for tool in run(go)}


def served_store(spill_dir: Path, *roots: Path) -> Path:
    """Where ``agentout serve --root ROOT...`` keeps its files in the store at ``spill_dir``."""
    from agentout.mcp.config import namespace_for

    return spill_dir / "namespaces" / namespace_for(Roots.of(roots))


def agent_tokens(result: CallToolResult) -> int:
    """What the agent is shown of a result, counted exactly (o200k_base): each text block's
    text, and every other block (a resource_link) as the JSON the client receives."""
    shown = 0
    for block in result.content:
        if block.type == "text":
            shown += count(block.text)
        else:
            as_sent = block.model_dump(mode="json", by_alias=True, exclude_none=True)
            shown += count(json.dumps(as_sent, ensure_ascii=False, separators=(",", ":")))
    return shown
