"""Claude Code: where ``agentout init claude`` writes, and how it checks what it wrote.

agentout reaches the commands Claude Code runs in three ways, none of which decides a
permission (``agentout.agents.hook``): its functions in the session's shell reduce the
commands agentout knows, failing ones included, where the client captures their output
(``SessionStart`` writes them, ``PreToolUse`` only notes each call:
``agentout.agents.claude_shell``); ``PostToolUse`` replaces what the model reads of any
other command that succeeded and fits the MCP results of every server
(``claude_bash``, ``claude_mcp``). The hook never answers ``PreToolUse``: the command the
person approves is the command that runs, and what the person allowed, denied or was
asked stays Claude Code's alone, in every mode, with any flag.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from pathlib import Path

    from agentout.agents._install import Edit

__all__ = ["POST_MATCHER", "check", "edits"]

# PostToolUse: Bash and every MCP tool (the hook leaves agentout's own alone). Claude Code
# tests a matcher that is not a plain name as an unanchored regex: anchored here.
POST_MATCHER = "^(Bash|mcp__.*)$"


# -- what `agentout init claude` writes ----------------------------------------------------------


def edits(
    *,
    scope: str,
    home: Path,
    project: Path,
    agentout: Sequence[str],
    ledger: bool = True,
    server: Sequence[str] | None = None,
    hook: Sequence[str] | None = None,
) -> list[Edit]:
    """The hooks (``settings.local.json`` of the project, or the user's ``settings.json``):
    ``SessionStart`` (the functions in the session's shell; after a compaction, the
    session's outputs forgotten), ``PreToolUse`` for ``Bash`` (the call noted, never
    answered), ``PostToolUse`` for ``Bash`` and every MCP tool, ``PreCompact``; the MCP
    server (``.mcp.json``, or ``~/.claude.json``), the instructions (``CLAUDE.md``), and
    with ``ledger=False`` the ``env`` entry that turns the ledger off. ``server``: how a
    file the team shares (the project's ``.mcp.json``) starts the MCP server, so that it
    works on every machine (default: ``agentout``); ``hook``: how the hooks start it
    (default: ``agentout``; ``init`` gives the warm server's client)."""
    from agentout.agents._common import instructions, mcp_server
    from agentout.agents._install import JsonEntry, JsonHook, TextBlock

    head = shlex.join(agentout if hook is None else hook)
    started = agentout if scope == "global" or server is None else server
    if scope == "global":
        settings, servers, notes = (
            home / ".claude" / "settings.json",
            home / ".claude.json",
            home / ".claude" / "CLAUDE.md",
        )
    else:
        settings = project / ".claude" / "settings.local.json"
        servers, notes = project / ".mcp.json", project / "CLAUDE.md"
    wanted: list[Edit] = [
        JsonHook(settings, "PreToolUse", "Bash", f"{head} hook claude", " hook claude"),
        JsonHook(settings, "PostToolUse", POST_MATCHER, f"{head} hook claude", " hook claude"),
        JsonHook(settings, "PreCompact", "*", f"{head} hook claude", " hook claude"),
        JsonHook(settings, "SessionStart", "*", f"{head} hook claude", " hook claude"),
        JsonEntry(
            servers,
            ("mcpServers",),
            "agentout",
            {"type": "stdio", **mcp_server(started)},
            loose=True,
        ),
        TextBlock(notes, instructions(reached=True)),
    ]
    if not ledger:
        wanted.append(JsonEntry(settings, ("env",), "AGENTOUT_LEDGER", "0"))
    return wanted


def check(agentout: Sequence[str]) -> str | None:
    """Run the installed hook on harmless payloads: None if it answers as a hook must
    (``PreToolUse``: nothing at all; ``PostToolUse``: nothing for output as printed)."""
    from agentout.agents._common import check_hook

    before = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "permission_mode": "default",
        "tool_input": {"command": "true"},
    }
    after = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "echo ok"},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
    }
    return check_hook(agentout, "claude", before, b"") or check_hook(agentout, "claude", after, b"")
