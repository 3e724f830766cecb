"""Gemini CLI: the MCP server in ``settings.json`` and the instructions in ``GEMINI.md``.

No shell hook is installed: Gemini CLI's ``BeforeTool`` hook could rewrite a
``run_shell_command``, but its policy engine's rules are not evaluated again on a
rewritten command the way the hook would need, so a rewrite could run a command a deny
rule would have stopped. agentout stays out of its permissions (never looser than
without agentout); the agent reaches agentout through the instructions and MCP tools.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from agentout.agents._common import instructions, mcp_server
from agentout.agents._install import Edit, JsonEntry, TextBlock

__all__ = ["edits"]


def edits(
    *, scope: str, home: Path, project: Path, agentout: Sequence[str], ledger: bool = True
) -> list[Edit]:
    base = home / ".gemini" if scope == "global" else project / ".gemini"
    notes = base / "GEMINI.md" if scope == "global" else project / "GEMINI.md"
    return [
        JsonEntry(base / "settings.json", ("mcpServers",), "agentout", mcp_server(agentout)),
        TextBlock(notes, instructions()),
    ]
