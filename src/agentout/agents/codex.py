"""Codex CLI: a ``PreToolUse`` hook that routes what Codex's own rules allow through
``agentout run``, the MCP server in ``~/.codex/config.toml``, a note in ``AGENTS.md``.

Codex (0.131 and later) applies a ``PreToolUse`` hook's ``updatedInput`` only together
with ``permissionDecision: "allow"`` (codex-rs/hooks output_parser.rs), so the hook
rewrites a command only when Codex's execpolicy rules (``agentout.agents._codex_rules``)
allow every part of it and no ``prompt`` or ``forbidden`` rule matches it or its
rewrite: the same permission rule as for Claude Code, the hook never allows more than
Codex would. The rewritten command is judged by Codex's approval policy and sandbox like
any other. Codex has no hook that replaces a finished command's output in place
(``updatedToolOutput`` was never merged; a ``PostToolUse`` ``block`` turns the result
into an error), so output is reduced only through the rewrite.

Codex runs an unmanaged hook only once it is trusted (``/hooks`` in the TUI writes its
hash into ``config.toml``); ``agentout init codex --show`` says so.
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from agentout.agents._common import instructions
from agentout.agents._install import Edit, JsonHook, TextBlock

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from typing import Any

__all__ = ["REASON", "check", "decide", "edits"]

REASON = "agentout: output reduced by agentout run (allowed by your Codex rules)"
_ALLOWING = {None, "default", "acceptEdits", "dontAsk", "bypassPermissions"}


def decide(
    payload: Mapping[str, Any],
    *,
    rules: Any = None,
    agentout: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    report: Callable[[str], None] | None = None,
) -> dict[str, Any] | None:
    """The hook's answer for one ``PreToolUse`` payload of Codex, or None for none."""
    from agentout.agents._routing import rewrite, routable
    from agentout.agents._shell import analyse

    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, Mapping) or not isinstance(tool_input.get("command"), str):
        return None
    if payload.get("permission_mode") not in _ALLOWING:
        return None
    script = analyse(tool_input["command"])
    if script is None or not script.plain:
        return None
    if rules is None:
        from agentout.agents._codex_rules import load, rule_files

        cwd = payload.get("cwd")
        env = os.environ if environ is None else environ
        rules = load(rule_files(env, cwd if isinstance(cwd, str) and cwd else os.getcwd()))
    if rules.broken is not None:
        if report is not None:
            report(f"{rules.broken}; no command is rewritten")
        return None
    parts = [segment.words or () for segment in script.segments]
    if not all(words and rules.decision(words) == "allow" for words in parts):
        return None
    if not routable(script, lambda segment: rules.names(segment.words or ())):
        return None
    routed = rewrite(script, agentout)
    if rules.decision(shlex.split(routed)) in ("prompt", "forbidden"):
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": REASON,
            "updatedInput": {**tool_input, "command": routed},
        }
    }


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
    """The hook (``~/.codex/hooks.json``, or the project's ``.codex/hooks.json``), the MCP
    server (``~/.codex/config.toml``: Codex reads servers from the user's config) and the
    note (``AGENTS.md``). ``hook``: how the hook starts agentout (default: ``agentout``)."""
    codex = Path(os.environ.get("CODEX_HOME", "") or home / ".codex")
    hooks = codex / "hooks.json" if scope == "global" else project / ".codex" / "hooks.json"
    head = shlex.join(agentout if hook is None else hook)
    entry = (
        "[mcp_servers.agentout]",
        f"command = {json.dumps(agentout[0])}",
        f"args = {json.dumps([*agentout[1:], 'serve'])}",
    )
    notes = codex / "AGENTS.md" if scope == "global" else project / "AGENTS.md"
    return [
        JsonHook(hooks, "PreToolUse", "Bash", f"{head} hook codex", " hook codex"),
        TextBlock(codex / "config.toml", entry, ("# ", ""), what="mcp_servers.agentout"),
        TextBlock(notes, instructions()),
    ]


def check(agentout: Sequence[str]) -> str | None:
    """Run the installed hook on a harmless payload: None if it answers as a hook must.
    (Codex itself runs it only once it is trusted: ``/hooks`` in the TUI.)"""
    from agentout.agents._common import check_hook

    payload = {"hook_event_name": "PreToolUse", "tool_name": "Bash",
               "tool_input": {"command": "true"}}  # fmt: skip
    return check_hook(agentout, "codex", payload, b"")
