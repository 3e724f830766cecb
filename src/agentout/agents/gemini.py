"""Gemini CLI: an ``AfterTool`` hook, the MCP server in ``settings.json``, and the
instructions in ``GEMINI.md``.

The hook (``agentout hook gemini``, ``agentout.agents.gemini_shell``) runs after a
``run_shell_command`` has finished: the command ran exactly as Gemini CLI's policy
engine and the user decided, and agentout only replaces the output the model reads with
``agentout run``'s smaller delivery of it (the complete output kept in the store, named
by ``agentout show REF``), when that is fewer tokens. It never changes what runs or what
is allowed: it cannot, the command is over. After another MCP server's tool, a result
over agentout's MCP budget is cut to fit as agentout's own tools cut theirs
(``agentout.agents.gemini_mcp``).

No ``BeforeTool`` rewrite is installed: Gemini CLI's policy rules are not evaluated again
on a rewritten command the way the hook would need, so a rewrite could run a command a
deny rule would have stopped.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path

from agentout.agents._common import check_hook, instructions, mcp_server
from agentout.agents._install import Edit, JsonEntry, JsonHook, TextBlock

__all__ = ["HOOK_NAME", "MATCHER", "check", "edits"]

HOOK_NAME = "agentout"
# A regex Gemini CLI searches the tool name with (unanchored: anchored here, or it would
# also run for built-in tools such as read_mcp_resource).
MATCHER = "^(run_shell_command|mcp_.+)$"
_TIMEOUT_MS = 10_000  # Gemini CLI's hook timeout is in milliseconds (default 60000)


def edits(
    *,
    scope: str,
    home: Path,
    project: Path,
    agentout: Sequence[str],
    ledger: bool = True,
    output_hook: bool = False,
    server: Sequence[str] | None = None,
    hook: Sequence[str] | None = None,
) -> list[Edit]:
    """The MCP server (``.gemini/settings.json`` of the project, or
    ``~/.gemini/settings.json``), the instructions (``GEMINI.md``) and, with
    ``output_hook``, the ``AfterTool`` hook: asked for, because Gemini CLI 0.61 shows a
    replaced result as "Tool result blocked" (the only answer it applies is a deny). With
    ``ledger=False`` both run with ``AGENTOUT_LEDGER=0`` (Gemini CLI has no ``env``
    setting for what it starts; its hook commands run through the shell). ``hook``: how
    the hook starts agentout (default: ``agentout``)."""
    base = home / ".gemini" if scope == "global" else project / ".gemini"
    notes = base / "GEMINI.md" if scope == "global" else project / "GEMINI.md"
    settings = base / "settings.json"
    off = "" if ledger else "env AGENTOUT_LEDGER=0 "
    command = f"{off}{shlex.join(agentout if hook is None else hook)} hook gemini"
    entry = mcp_server(agentout if scope == "global" or server is None else server)
    if not ledger:
        entry["env"] = {"AGENTOUT_LEDGER": "0"}
    hooks: list[Edit] = [
        JsonHook(
            settings,
            "AfterTool",
            MATCHER,
            command,
            " hook gemini",
            timeout=_TIMEOUT_MS,
            name=HOOK_NAME,
        )
    ]
    return [
        *(hooks if output_hook else []),
        JsonEntry(settings, ("mcpServers",), "agentout", entry, loose=True),
        TextBlock(notes, instructions()),
    ]


def check(agentout: Sequence[str]) -> str | None:
    """Run the installed hook on a small finished command: None if it answers ``{}``
    (nothing to shrink) with nothing on stderr, as a hook must."""
    payload = {
        "hook_event_name": "AfterTool",
        "tool_name": "run_shell_command",
        "tool_input": {"command": "true"},
        "tool_response": {
            "llmContent": "<untrusted_context>\nOutput: ok\n</untrusted_context>",
            "returnDisplay": "ok",
        },
    }
    return check_hook(agentout, "gemini", payload, b"{}")
