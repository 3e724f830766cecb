"""``agentout hook AGENT``: read one hook payload on stdin, print the answer, exit 0.

Two events for Claude Code: ``PreToolUse`` for its shell tool (``agentout.agents.claude``)
and ``PostToolUse`` for MCP tools (``agentout.agents.claude_mcp``), told apart by the
payload's ``hook_event_name``. Fail-open by construction: whatever goes wrong (bad JSON,
no command, a payload over ``MAX_PAYLOAD``, an unknown tool, a bad config file, a crash,
more than the time limit), the answer is nothing at all, so the agent runs the command
as it was and decides its permission as it would without agentout, or gets the tool's
result as it was; one line on stderr says why. Nothing here imports click, and nothing
loads a tokenizer before it is needed: the hook runs around every tool call.
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable, Mapping, Sequence

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from typing import IO, Any

__all__ = ["AGENTS", "MAX_PAYLOAD", "MAX_POST_PAYLOAD", "TIME_LIMIT", "answer", "main"]

MAX_PAYLOAD = 1 << 20  # a Bash payload is a command and a few fields
MAX_POST_PAYLOAD = 64 << 20  # a PostToolUse payload holds a tool's result: megabytes
TIME_LIMIT = 2.0
POST_TIME_LIMIT = 8.0  # fitting a large MCP result; the hook entry allows 10 s
_SHELL_TOOLS = {"claude": {"Bash"}}
_POST = {"claude"}
_limit = [TIME_LIMIT]  # the limit in force, for the message


class _TimeLimit(Exception):
    pass


def _claude(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    from agentout.agents.claude import decide

    return decide(payload)


AGENTS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any] | None]] = {"claude": _claude}


def answer(agent: str, raw: bytes) -> tuple[str, str | None]:
    """(what to print on stdout, the one line for stderr or None) for a payload."""
    decide = AGENTS.get(agent)
    if decide is None:
        known = ", ".join(sorted(AGENTS))
        return "", f"agentout: hook: unknown agent {agent!r} (known: {known}); nothing changed"
    if len(raw) > MAX_POST_PAYLOAD:
        return (
            "",
            f"agentout: hook: <stdin>: payload over {MAX_POST_PAYLOAD} bytes; nothing changed",
        )
    try:
        payload = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return "", f"agentout: hook: <stdin>: not UTF-8 (byte {exc.start}); nothing changed"
    except json.JSONDecodeError as exc:
        where = f"<stdin>:{exc.lineno}:{exc.colno}"
        return "", f"agentout: hook: {where}: {exc.msg} (JSON); nothing changed"
    if not isinstance(payload, dict):
        return "", "agentout: hook: <stdin>: the payload is not a JSON object; nothing changed"
    if payload.get("hook_event_name") == "PostToolUse" and agent in _POST:
        return _post(payload)
    if len(raw) > MAX_PAYLOAD:
        return "", f"agentout: hook: <stdin>: payload over {MAX_PAYLOAD} bytes; nothing changed"
    tool = payload.get("tool_name")
    if tool not in _SHELL_TOOLS[agent]:
        return "", f"agentout: hook: tool {tool!r} is not a shell tool; nothing changed"
    tool_input = payload.get("tool_input")
    if not isinstance(tool_input, dict) or not isinstance(tool_input.get("command"), str):
        return "", "agentout: hook: the payload has no tool_input.command; nothing changed"
    reply = decide(payload)
    if reply is None:
        return "", None
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n", None


def _post(payload: dict[str, Any]) -> tuple[str, str | None]:
    """A ``PostToolUse`` answer: an MCP result fitted to its budget, or nothing."""
    if hasattr(signal, "setitimer") and signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        _limit[0] = POST_TIME_LIMIT  # the result is read: fitting it has its own limit
        signal.setitimer(signal.ITIMER_REAL, POST_TIME_LIMIT)
    from agentout.agents.claude_mcp import FitFailed, decide_post
    from agentout.errors import InputError

    try:
        reply = decide_post(payload)
    except InputError as exc:
        return "", f"agentout: hook: {exc}; nothing changed"
    except FitFailed as exc:
        return "", f"agentout: hook: {payload.get('tool_name')}: {exc}; nothing changed"
    if reply is None:
        return "", None
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n", None


def _read_limited(stream: IO[bytes]) -> bytes:
    """At most ``MAX_POST_PAYLOAD + 1`` bytes kept; the rest read and dropped (the agent's
    write never meets a closed pipe)."""
    data = stream.read(MAX_POST_PAYLOAD + 1)
    if len(data) > MAX_POST_PAYLOAD:
        while stream.read(1 << 20):
            pass
    return data


def _on_alarm(signum: int, frame: Any) -> None:
    raise _TimeLimit


def main(argv: Sequence[str], stdin: IO[bytes] | None = None) -> int:
    """The whole hook: always exit status 0 and, at worst, no answer."""
    out, err = "", None
    agent = argv[0] if argv else ""
    previous = None
    _limit[0] = TIME_LIMIT
    if hasattr(signal, "setitimer"):
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    try:
        raw = _read_limited(stdin if stdin is not None else sys.stdin.buffer)
        out, err = answer(agent, raw)
    except _TimeLimit:
        out, err = "", f"agentout: hook: no answer within {_limit[0]:g}s; nothing changed"
    except Exception as exc:  # fail open: the command runs as it was
        out, err = "", f"agentout: hook: {type(exc).__name__}: {exc}; nothing changed"
    finally:
        if previous is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    try:
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
        if err:
            sys.stderr.write(err.replace("\n", " ") + "\n")
    except OSError:
        pass
    return 0
