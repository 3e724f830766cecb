"""Claude Code's session transcripts, read for ``agentout discover``: every shell command
the agent ran, with the output it really got back, and every MCP tool result.

A transcript is JSONL under ``~/.claude/projects/<project>/<session>.jsonl`` (or
``$CLAUDE_CONFIG_DIR/projects``). An ``assistant`` line's ``message.content`` holds
``tool_use`` blocks (``name`` "Bash", ``input.command``, ``id``); a later ``user``
line holds the matching ``tool_result`` (``tool_use_id``, ``content`` as text or text
blocks, ``is_error``), and often ``toolUseResult`` with the command's ``stdout`` and
``stderr``, which are preferred as the raw output. The permission mode a call was made in
is the latest ``permissionMode`` a line of the file gave (``default`` before any). An MCP
tool (``mcp__SERVER__TOOL``) has its result in the ``tool_result``'s ``content`` as the
model got it: a string (the structured content as JSON) or content blocks, the form the
``PostToolUse`` hook gets.
Lines that are not JSON objects are skipped and counted; nothing is ever written.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["McpCall", "ShellCall", "Transcripts", "read"]

SHELL_TOOLS = {"Bash"}


@dataclass(frozen=True)
class ShellCall:
    command: str
    output: str
    failed: bool
    time: float | None
    project: str
    session: str
    mode: str = "default"  # the session's permission mode when the call was made
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_use_id: str = ""


@dataclass(frozen=True)
class McpCall:
    tool: str  # mcp__SERVER__TOOL
    response: Any  # as the model got it: a string or a list of content blocks
    failed: bool
    time: float | None
    project: str
    session: str


@dataclass
class Transcripts:
    calls: list[ShellCall] = field(default_factory=list)
    mcp_calls: list[McpCall] = field(default_factory=list)
    files: int = 0
    lines: int = 0
    broken: int = 0  # lines that are not JSON objects
    unanswered: int = 0  # commands with no result in the transcript


def _when(value: Any) -> float | None:
    if not isinstance(value, str) or len(value) < 19:
        return None
    try:
        return time.mktime(time.strptime(value[:19], "%Y-%m-%dT%H:%M:%S")) - time.timezone
    except ValueError:
        return None


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            block.get("text", "") for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )  # fmt: skip
    return ""


def _blocks(entry: dict[str, Any]) -> list[dict[str, Any]]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _read_file(path: Path, found: Transcripts, since: float | None, project: str | None) -> None:
    pending: dict[str, tuple[str, float | None, str, str, str, dict[str, Any]]] = {}
    mode = "default"
    pending_mcp: dict[str, tuple[str, float | None, str, str]] = {}
    try:
        handle = path.open("rb")
    except OSError:
        found.broken += 1
        return
    with handle:
        for raw in handle:
            found.lines += 1
            try:
                entry = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                found.broken += 1
                continue
            if not isinstance(entry, dict):
                found.broken += 1
                continue
            cwd = str(entry.get("cwd") or "")
            session = str(entry.get("sessionId") or path.stem)
            if isinstance(entry.get("permissionMode"), str):
                mode = entry["permissionMode"]
            for block in _blocks(entry):
                kind = block.get("type")
                if kind == "tool_use" and block.get("name") in SHELL_TOOLS:
                    given: dict[str, Any] = (
                        block["input"] if isinstance(block.get("input"), dict) else {}
                    )
                    command = given.get("command")
                    if isinstance(command, str) and isinstance(block.get("id"), str):
                        when = _when(entry.get("timestamp"))
                        pending[block["id"]] = (command, when, cwd, session, mode, given)
                elif kind == "tool_use" and str(block.get("name", "")).startswith("mcp__"):
                    if isinstance(block.get("id"), str):
                        when = _when(entry.get("timestamp"))
                        pending_mcp[block["id"]] = (block["name"], when, cwd, session)
                elif kind == "tool_result" and block.get("tool_use_id") in pending_mcp:
                    tool, when, where, session_id = pending_mcp.pop(block["tool_use_id"])
                    if since is not None and (when is None or when < since):
                        continue
                    if project is not None and where != project:
                        continue
                    failed = bool(block.get("is_error"))
                    response = block.get("content")
                    found.mcp_calls.append(McpCall(tool, response, failed, when, where, session_id))
                elif kind == "tool_result" and block.get("tool_use_id") in pending:
                    tool_use_id = block["tool_use_id"]
                    command, when, where, session_id, used, given = pending.pop(tool_use_id)
                    if since is not None and (when is None or when < since):
                        continue
                    if project is not None and where != project:
                        continue
                    output = _output(entry, block)
                    failed = bool(block.get("is_error"))
                    found.calls.append(
                        ShellCall(command, output, failed, when, where, session_id, used,
                                  given, tool_use_id)
                    )  # fmt: skip
    found.unanswered += len(pending) + len(pending_mcp)


def _output(entry: dict[str, Any], block: dict[str, Any]) -> str:
    result = entry.get("toolUseResult")
    if isinstance(result, dict) and isinstance(result.get("stdout"), str):
        stderr = str(result.get("stderr") or "")
        stdout = str(result["stdout"])
        return stdout + (("\n" + stderr) if stderr and stdout else stderr)
    return _text(block.get("content"))


def read(root: Path, *, since: float | None = None, project: str | None = None) -> Transcripts:
    """Every shell call under ``root`` (a ``projects`` directory, one project's directory
    or one transcript file), oldest file first."""
    found = Transcripts()
    files = [root] if root.is_file() else sorted(root.rglob("*.jsonl"))
    for path in files:
        found.files += 1
        _read_file(path, found, since, project)
    return found
