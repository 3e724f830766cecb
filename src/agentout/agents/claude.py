"""Claude Code: its ``PreToolUse`` hook for the ``Bash`` tool, and where ``init`` writes.

The hook rewrites a command to run through ``agentout run`` only when Claude Code would
run that command without asking anyone, and only in a form Claude Code will treat the
same way; in every other case it answers nothing, and Claude Code decides exactly as it
would with no hook at all. The cases (``permission_mode`` from the hook's input):

================  ===========================================  ===========================
mode              when                                         answer
================  ===========================================  ===========================
bypassPermissions no deny or ask rule could match the command  ``updatedInput`` alone
                  or its rewrite                               (no decision: a decision
                                                               beside ``updatedInput``
                                                               made older versions drop
                                                               the rewrite in this mode)
default,          every part of the command surely matches an  ``permissionDecision:
acceptEdits,      allow rule (in auto mode, not one of the     "allow"`` with
dontAsk, auto     rules auto mode drops), and no deny or ask   ``updatedInput``
                  rule could match the command or its rewrite
anything else     plan mode, an unknown mode, no allow rule,   nothing (exit 0, no output)
                  a deny or ask rule, settings that cannot be
                  read, rules given on Claude Code's command
                  line, a command that is not plain or not
                  worth routing
================  ===========================================  ===========================

So a denied command stays denied (not rewritten: Claude Code denies it), an asked one is
asked (not rewritten), an explicitly allowed one runs routed, and an unlisted one goes
through Claude Code's own prompt, read-only check or classifier, unrouted. Deny and ask
rules are evaluated by Claude Code again on the rewritten command, so the rewrite is
checked against them too. Commands Claude Code inspects for the files they write or
remove, output redirections, globs and expansions are never rewritten, so none of its
built-in checks is hidden from it.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Callable, Mapping, Sequence

from agentout.agents._claude_rules import RuleSet, config_dir, load_rules, settings_files
from agentout.agents._routing import reads_files, rewrite, routable, truthy
from agentout.agents._shell import analyse

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from agentout.agents._install import Edit

__all__ = ["MODES", "POST_MATCHER", "check", "decide", "edits"]

# PostToolUse: Bash and every MCP tool (the hook leaves agentout's own alone). Claude Code
# tests a matcher that is not a plain name as an unanchored regex: anchored here.
POST_MATCHER = "^(Bash|mcp__.*)$"
MODES = ("default", "acceptEdits", "plan", "auto", "dontAsk", "bypassPermissions")
_ALLOWING_MODES = {"default", "acceptEdits", "dontAsk", "auto"}
# Claude Code's own command-line flags that add rules a hook cannot read from any file.
_CLI_RULE_FLAGS = {
    "--allowedTools", "--allowed-tools", "--disallowedTools", "--disallowed-tools",
    "--settings", "--permission-prompt-tool",
}  # fmt: skip
REASON = "agentout: output reduced by agentout run (allowed by your permission rules)"


def decide(
    payload: Mapping[str, Any],
    *,
    rules: RuleSet | None = None,
    agentout: Sequence[str] | None = None,
    proc: str | None = "/proc",
    report: Callable[[str], None] | None = None,
) -> dict[str, Any] | None:
    """The hook's JSON answer for one ``PreToolUse`` payload, or None for no answer.

    ``rules`` defaults to the settings files of the payload's project; ``proc`` is where
    the ancestors' command lines are read (None: not read); ``report(message)`` is told
    why nothing is rewritten when a settings file cannot be read.
    """
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, Mapping):
        return None
    command = tool_input.get("command")
    if not isinstance(command, str) or truthy(tool_input.get("run_in_background")):
        return None
    mode = payload.get("permission_mode", "default")
    mode = "default" if mode in (None, "manual") else mode
    if mode not in _ALLOWING_MODES and mode != "bypassPermissions":
        return None
    script = analyse(command)
    if script is None or not script.plain:
        return None
    worth = routable(script)  # a reducer for it: known without reading any settings
    if rules is None:
        rules = project_rules(payload)
    if rules.broken is not None or rules.unknown:
        if report is not None and rules.broken is not None:
            report(f"{rules.broken}; no command is rewritten")
        return None
    if not (worth or routable(script, rules.names)):
        return None
    if proc is not None and _started_with_rule_flags(proc):
        return None
    if rules.file_rules and reads_files(script):  # Read/Edit rules cover `cat .env` too
        return None
    if rules.could_deny_or_ask(script, tool_input):
        return None
    routed = rewrite(script, agentout)
    rewritten = analyse(routed)
    if rewritten is None or rules.could_deny_or_ask(rewritten, tool_input):
        return None
    updated = {**tool_input, "command": routed}
    if mode == "bypassPermissions":
        return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": updated}}
    if not rules.surely_allowed(script, auto_mode=mode == "auto"):
        return None
    return {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": REASON,
            "updatedInput": updated,
        }
    }


def project_rules(payload: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> RuleSet:
    """The rules of every settings file that counts for the payload's session."""
    env = os.environ if environ is None else environ
    cwd_value = payload.get("cwd")
    cwd = cwd_value if isinstance(cwd_value, str) and cwd_value else os.getcwd()
    project = env.get("CLAUDE_PROJECT_DIR") or cwd
    files = settings_files(config_dir=config_dir(env), project_dir=project, cwd=cwd)
    return load_rules(files)


def _is_claude(word: str) -> bool:
    """Claude Code's own executable: the native ``claude`` or its Node entry point."""
    name = os.path.basename(word).lower()
    return name in ("claude", "claude.exe") or ("claude" in word.lower() and name.endswith(".js"))


def _started_with_rule_flags(proc: str | os.PathLike[str], depth: int = 8) -> bool:
    """Whether a Claude Code process above this one was given rules on its command line
    (``--allowedTools``, ``--disallowedTools``, ``--settings``...): rules no file holds."""
    pid = os.getppid()
    for _ in range(depth):
        if pid <= 1:
            return False
        try:
            with open(os.path.join(proc, str(pid), "cmdline"), "rb") as handle:
                argv = handle.read().split(b"\0")
            with open(os.path.join(proc, str(pid), "stat"), "rb") as handle:
                stat = handle.read().decode("utf-8", "replace")
        except OSError:
            return False
        words = [a.decode("utf-8", "replace") for a in argv if a]
        if any(_is_claude(word) for word in words[:2]):
            return any(w.split("=", 1)[0] in _CLI_RULE_FLAGS for w in words)
        try:
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except (IndexError, ValueError):
            return False
    return False


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
    ``PreToolUse`` for ``Bash``, ``PostToolUse`` for ``Bash`` and every MCP tool,
    ``PreCompact`` and ``SessionStart`` after a compaction (the session's outputs are
    forgotten); the MCP server (``.mcp.json``, or ``~/.claude.json``), the instructions
    (``CLAUDE.md``), and with ``ledger=False`` the ``env`` entry that turns the ledger
    off. ``server``: how a file the team shares (the project's ``.mcp.json``) starts the
    MCP server, so that it works on every machine (default: ``agentout``); ``hook``: how
    the hooks start it (default: ``agentout``; ``init`` gives the warm server's client)."""
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
        TextBlock(notes, instructions()),
    ]
    if not ledger:
        wanted.append(JsonEntry(settings, ("env",), "AGENTOUT_LEDGER", "0"))
    return wanted


def check(agentout: Sequence[str]) -> str | None:
    """Run the installed hook on a harmless payload: None if it answers as a hook must."""
    from agentout.agents._common import check_hook

    before = {"tool_name": "Bash", "permission_mode": "default", "tool_input": {"command": "true"}}
    after = {
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "echo ok"},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
    }
    return check_hook(agentout, "claude", before, b"") or check_hook(agentout, "claude", after, b"")
