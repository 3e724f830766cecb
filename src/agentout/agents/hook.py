"""``agentout hook AGENT``: read one hook payload on stdin, print the answer, exit 0.

Fail-open by construction: whatever goes wrong (bad JSON, no command, a payload over
``MAX_PAYLOAD``, an unknown tool, a crash, more than ``TIME_LIMIT`` seconds), the answer
is nothing at all, so the agent runs the command as it was and decides its permission
as it would without agentout; one line on stderr says why. Nothing here imports click
or a tokenizer: the hook runs before every shell command an agent starts.

``gemini`` is Gemini CLI's ``AfterTool`` hook (``agentout.agents.gemini_shell``): it sees
the command after it ran and may only shrink its output. Its payload carries that
output, so it may be larger (``MAX_PAYLOADS``), and "nothing" is ``{}``: Gemini reads a
hook's stderr as its answer when stdout is empty.
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable, Mapping, Sequence

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from typing import IO, Any

__all__ = ["AGENTS", "MAX_PAYLOAD", "MAX_PAYLOADS", "TIME_LIMIT", "TIME_LIMITS", "answer", "main"]

MAX_PAYLOAD = 1 << 20  # a Bash payload is a command and a few fields
MAX_PAYLOADS = {"gemini": 8 << 20}  # an AfterTool payload holds the command's output
TIME_LIMIT = 2.0
TIME_LIMITS = {"gemini": 5.0}  # after the command: it reduces the output, as agentout run does
_SHELL_TOOLS = {"claude": {"Bash"}, "gemini": {"run_shell_command"}}
_MCP_TOOLS = {"gemini": "mcp_"}  # the prefix of an MCP server's tools (AfterTool: their result)
_EVENTS = {"gemini": "AfterTool"}
_NOTHING = {"gemini": "{}\n"}


class _TimeLimit(Exception):
    pass


def _claude(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    from agentout.agents.claude import decide

    return decide(payload)


def _gemini(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    if str(payload["tool_name"]).startswith(_MCP_TOOLS["gemini"]):
        from agentout.agents import gemini_mcp

        return gemini_mcp.decide(payload)
    from agentout.agents import gemini_shell

    return gemini_shell.decide(payload)


AGENTS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any] | None]] = {
    "claude": _claude,
    "gemini": _gemini,
}


def _limit(agent: str) -> int:
    return MAX_PAYLOADS.get(agent, MAX_PAYLOAD)


def _time_limit(agent: str) -> float:
    return TIME_LIMITS.get(agent, TIME_LIMIT)


def answer(agent: str, raw: bytes) -> tuple[str, str | None]:
    """(what to print on stdout, the one line for stderr or None) for a payload."""
    decide = AGENTS.get(agent)
    if decide is None:
        known = ", ".join(sorted(AGENTS))
        return "", f"agentout: hook: unknown agent {agent!r} (known: {known}); nothing changed"
    if len(raw) > _limit(agent):
        return "", f"agentout: hook: <stdin>: payload over {_limit(agent)} bytes; nothing changed"
    try:
        payload = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return "", f"agentout: hook: <stdin>: not UTF-8 (byte {exc.start}); nothing changed"
    except json.JSONDecodeError as exc:
        where = f"<stdin>:{exc.lineno}:{exc.colno}"
        return "", f"agentout: hook: {where}: {exc.msg} (JSON); nothing changed"
    if not isinstance(payload, dict):
        return "", "agentout: hook: <stdin>: the payload is not a JSON object; nothing changed"
    event = _EVENTS.get(agent)
    if event is not None and payload.get("hook_event_name") != event:
        name = payload.get("hook_event_name")
        return "", f"agentout: hook: event {name!r} is not {event}; nothing changed"
    tool = payload.get("tool_name")
    mcp = _MCP_TOOLS.get(agent)
    if not (mcp and isinstance(tool, str) and tool.startswith(mcp)):
        if tool not in _SHELL_TOOLS[agent]:
            return "", f"agentout: hook: tool {tool!r} is not a shell tool; nothing changed"
        tool_input = payload.get("tool_input")
        if not isinstance(tool_input, dict) or not isinstance(tool_input.get("command"), str):
            return "", "agentout: hook: the payload has no tool_input.command; nothing changed"
    reply = decide(payload)
    if reply is None:
        return "", None
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n", None


def _read_limited(stream: IO[bytes], limit: int = MAX_PAYLOAD) -> bytes:
    """At most ``limit + 1`` bytes kept; the rest read and dropped (the agent's write
    never meets a closed pipe)."""
    data = stream.read(limit + 1)
    if len(data) > limit:
        while stream.read(1 << 20):
            pass
    return data


def _on_alarm(signum: int, frame: Any) -> None:
    raise _TimeLimit


def main(argv: Sequence[str], stdin: IO[bytes] | None = None) -> int:
    """The whole hook: always exit status 0 and, at worst, no answer."""
    out, err = "", None
    agent = argv[0] if argv else ""
    limit = _time_limit(agent)
    previous = None
    if hasattr(signal, "setitimer"):
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        raw = _read_limited(stdin if stdin is not None else sys.stdin.buffer, _limit(agent))
        out, err = answer(agent, raw)
    except _TimeLimit:
        out, err = "", f"agentout: hook: no answer within {limit:g}s; nothing changed"
    except Exception as exc:  # fail open: the command runs as it was
        out, err = "", f"agentout: hook: {type(exc).__name__}: {exc}; nothing changed"
    finally:
        if previous is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    out = out or _NOTHING.get(agent, "")
    try:
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
        if err:
            sys.stderr.write(err.replace("\n", " ") + "\n")
    except OSError:
        pass
    return 0
