"""Codex CLI: the MCP server in ``~/.codex/config.toml`` and a note in ``AGENTS.md``.

Codex has no hook that can rewrite a shell command before its sandbox and approval
policy see it, so agentout is reached through the ``AGENTS.md`` note and the MCP tools.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from agentout.agents._common import instructions
from agentout.agents._install import Edit, TextBlock

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
    server = (
        "[mcp_servers.agentout]",
        f"command = {json.dumps(agentout[0])}",
        f"args = {json.dumps([*agentout[1:], 'serve'])}",
    )
    notes = home / ".codex" / "AGENTS.md" if scope == "global" else project / "AGENTS.md"
    return [
        TextBlock(home / ".codex" / "config.toml", server, ("# ", ""), what="mcp_servers.agentout"),
        TextBlock(notes, instructions()),
    ]
