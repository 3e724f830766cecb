"""OpenCode: the MCP server in ``opencode.json`` and the instructions in ``AGENTS.md``.

No shell hook is installed: OpenCode runs plugins (JavaScript) rather than command
hooks, and its ``permission.bash`` patterns are matched on the command a plugin leaves,
so a rewrite would take a command out of reach of its deny patterns.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentout.agents._common import instructions
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
    if scope == "global":
        config, notes = home / ".config" / "opencode" / "opencode.json", None
    else:
        config, notes = project / "opencode.json", project / "AGENTS.md"
    started = agentout if scope == "global" or server is None else server
    entry = {"type": "local", "command": [*started, "serve"], "enabled": True}
    wanted: list[Edit] = [JsonEntry(config, ("mcp",), "agentout", entry, loose=True)]
    if notes is not None:
        wanted.append(TextBlock(notes, instructions()))
    return wanted
