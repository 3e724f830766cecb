"""GitHub Copilot CLI: the MCP server in ``~/.copilot/mcp-config.json`` and the
instructions in ``.github/copilot-instructions.md``.

No shell hook is installed: a ``preToolUse`` hook's ``modifiedArgs`` would be run
under approvals Copilot CLI grants by command name (``--allow-tool``, session
approvals) that a hook cannot read, so a rewrite could run what would have been asked.
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
    entry = {"type": "local", **mcp_server(agentout), "tools": ["*"]}
    config = home / ".copilot" / "mcp-config.json"  # the user's, whatever the scope
    wanted: list[Edit] = [JsonEntry(config, ("mcpServers",), "agentout", entry, loose=True)]
    if scope != "global":
        wanted.append(TextBlock(project / ".github" / "copilot-instructions.md", instructions()))
    return wanted
