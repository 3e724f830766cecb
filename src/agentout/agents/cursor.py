"""Cursor: the MCP server in ``mcp.json`` and the instructions as a project rule.

No shell hook is installed: Cursor's ``beforeShellExecution`` hook answers with a
permission, but Cursor's own allowlist (kept in its application settings, out of a
hook's reach) decides the rest, and a hook's ``ask`` is not honoured in every run mode,
so a rewrite could run a command Cursor would have stopped or asked about.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentout.agents._common import instructions, mcp_server
from agentout.agents._install import Edit, JsonEntry, TextBlock

__all__ = ["edits"]


def edits(
    *,
    scope: str,
    home: Path,
    project: Path,
    agentout: Sequence[str],
    ledger: bool = True,
    server: Sequence[str] | None = None,
) -> list[Edit]:
    base = home / ".cursor" if scope == "global" else project / ".cursor"
    started = agentout if scope == "global" or server is None else server
    wanted: list[Edit] = [
        JsonEntry(base / "mcp.json", ("mcpServers",), "agentout", mcp_server(started), loose=True)
    ]
    if scope != "global":  # user rules live in Cursor's settings, not in a file
        wanted.append(TextBlock(base / "rules" / "agentout.mdc", instructions()))
    return wanted
