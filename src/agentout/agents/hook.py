"""``agentout hook AGENT``: read one hook payload on stdin, print the answer, exit 0.

For Claude Code, told apart by the payload's ``hook_event_name``: ``PreToolUse`` of its
``Bash`` tool (``agentout.agents.claude``: the commands its permission rules let run
unasked, routed through ``agentout run``), ``PostToolUse`` of ``Bash``
(``agentout.agents.claude_bash``: a finished command's output replaced by agentout's
smaller form) and of MCP tools (``agentout.agents.claude_mcp``: a result fitted to its
budget), and ``PreCompact`` / ``SessionStart`` after a compaction (what the session was
shown is forgotten; nothing printed). ``gemini`` is Gemini CLI's ``AfterTool`` hook
(``agentout.agents.gemini_shell``, ``gemini_mcp``): it sees a command after it ran and
may only shrink its output; "nothing" is ``{}`` there (Gemini reads a hook's stderr as
its answer when stdout is empty). ``codex`` is Codex's ``PreToolUse`` of its shell tool
(``agentout.agents.codex``: what its execpolicy rules allow, routed); ``opencode`` is
the call of agentout's OpenCode plugin after its bash tool (``agentout.agents.opencode``).

Fail-open by construction: whatever goes wrong (bad JSON, no command, a payload over its
limit, an unknown tool, a bad config or settings file, a crash, more than the time
limit), the answer is nothing at all, so the agent runs the command as it was and
decides its permission as it would without agentout, or gets the tool's result as it
was; one line on stderr says why. Nothing here imports click, and nothing loads a
tokenizer before it is needed: the hook runs around every tool call.
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable, Mapping, Sequence

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from typing import IO, Any

__all__ = [
    "AGENTS",
    "MAX_PAYLOAD",
    "MAX_PAYLOADS",
    "MAX_POST_PAYLOAD",
    "TIME_LIMIT",
    "TIME_LIMITS",
    "answer",
    "main",
    "respond",
]

MAX_PAYLOAD = 1 << 20  # a Bash payload is a command and a few fields
MAX_POST_PAYLOAD = 64 << 20  # a PostToolUse payload holds a tool's result: megabytes
# What is read of stdin, per agent: Claude's payload may be a PostToolUse result (its
# Bash payloads are held to MAX_PAYLOAD once parsed); Gemini's AfterTool holds the output.
MAX_PAYLOADS = {"claude": MAX_POST_PAYLOAD, "gemini": 8 << 20, "opencode": MAX_POST_PAYLOAD}
TIME_LIMIT = 2.0
# After the command: the output is reduced, as agentout run reduces it.
TIME_LIMITS = {"gemini": 5.0, "opencode": 8.0}
POST_TIME_LIMIT = 8.0  # fitting a large MCP result; the hook entry allows 10 s
_SHELL_TOOLS = {
    "claude": {"Bash"},
    "codex": {"Bash"},
    "gemini": {"run_shell_command"},
    "opencode": {"bash"},
}
_MCP_TOOLS = {"gemini": "mcp_"}  # the prefix of an MCP server's tools (AfterTool: their result)
_EVENTS = {"gemini": "AfterTool", "opencode": "PostToolUse"}
_NOTHING = {"gemini": "{}\n"}
_POST = {"claude"}
_COMPACTING = ("PreCompact", "SessionStart")
_limit = [TIME_LIMIT]  # the time limit in force, for the message


class _TimeLimit(Exception):
    pass


class _Unanswered(Exception):
    """No answer, and the one line that says why."""


def _claude(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """``PreToolUse`` of Bash: the call noted for agentout's functions in the session's
    shell (``agentout.agents.claude_shell``), never answered: what the person allowed,
    denied or was asked stays Claude Code's alone."""
    from agentout.agents.claude_shell import note_call

    note_call(payload)
    return None


def _gemini(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    if str(payload["tool_name"]).startswith(_MCP_TOOLS["gemini"]):
        from agentout.agents import gemini_mcp

        return gemini_mcp.decide(payload)
    from agentout.agents import gemini_shell

    return gemini_shell.decide(payload)


def _codex(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    from agentout.agents.codex import decide

    said: list[str] = []
    reply = decide(payload, report=said.append)
    if said:
        raise _Unanswered(said[0])
    return reply


def _opencode(payload: Mapping[str, Any]) -> dict[str, Any] | None:
    from agentout.agents import claude_bash, opencode
    from agentout.errors import InputError

    try:
        return opencode.decide(payload)
    except (claude_bash.BadPayload, InputError, OSError) as exc:
        raise _Unanswered(f"{exc}; nothing changed") from None


AGENTS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any] | None]] = {
    "claude": _claude,
    "codex": _codex,
    "gemini": _gemini,
    "opencode": _opencode,
}


def _read_size(agent: str) -> int:
    return MAX_PAYLOADS.get(agent, MAX_PAYLOAD)


def answer(agent: str, raw: bytes) -> tuple[str, str | None]:
    """(what to print on stdout, the one line for stderr or None) for a payload."""
    decide = AGENTS.get(agent)
    if decide is None:
        known = ", ".join(sorted(AGENTS))
        return "", f"agentout: hook: unknown agent {agent!r} (known: {known}); nothing changed"
    if len(raw) > _read_size(agent):
        size = _read_size(agent)
        return "", f"agentout: hook: <stdin>: payload over {size} bytes; nothing changed"
    try:
        payload = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return "", f"agentout: hook: <stdin>: not UTF-8 (byte {exc.start}); nothing changed"
    except json.JSONDecodeError as exc:
        where = f"<stdin>:{exc.lineno}:{exc.colno}"
        return "", f"agentout: hook: {where}: {exc.msg} (JSON); nothing changed"
    if not isinstance(payload, dict):
        return "", "agentout: hook: <stdin>: the payload is not a JSON object; nothing changed"
    if agent in _POST and payload.get("hook_event_name") == "PostToolUse":
        return _post(payload)
    if agent in _POST and payload.get("hook_event_name") in _COMPACTING:
        return _compacting(payload)
    if agent in _POST and len(raw) > MAX_PAYLOAD:
        return "", f"agentout: hook: <stdin>: payload over {MAX_PAYLOAD} bytes; nothing changed"
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
    try:
        reply = decide(payload)
    except _Unanswered as exc:
        return "", f"agentout: hook: {exc}"
    if reply is None:
        return "", None
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n", None


def _post(payload: dict[str, Any]) -> tuple[str, str | None]:
    """A ``PostToolUse`` answer: a Bash command's output reduced, or an MCP result fitted
    to its budget, or nothing."""
    tool = payload.get("tool_name")
    bash = tool == "Bash"
    if not bash and not (isinstance(tool, str) and tool.startswith("mcp__")):
        return (
            "",
            f"agentout: hook: PostToolUse of {tool!r}: not Bash nor MCP; nothing changed",
        )
    if hasattr(signal, "setitimer") and signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        _limit[0] = POST_TIME_LIMIT  # the result is read: reducing it has its own limit
        signal.setitimer(signal.ITIMER_REAL, POST_TIME_LIMIT)
    from agentout.errors import InputError

    if bash:
        from agentout.agents.claude_bash import BadPayload as Failed
        from agentout.agents.claude_bash import decide as reply_to
    else:
        from agentout.agents.claude_mcp import FitFailed as Failed  # type: ignore[assignment]
        from agentout.agents.claude_mcp import decide_post as reply_to  # type: ignore[assignment]
    try:
        reply = reply_to(payload)
    except InputError as exc:  # a bad config: off, and said where the person sees it
        return _bad_config(payload, str(exc))
    except (Failed, OSError) as exc:
        return "", f"agentout: hook: {tool}: {exc}; nothing changed"
    if reply is None:
        return "", None
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n", None


def _bad_config(payload: dict[str, Any], problem: str) -> tuple[str, str | None]:
    """The tool's result left as it was, and one line on stderr; the first time in a
    session, also a message the person sees (``systemMessage``) and the model reads
    (``additionalContext``), so a bad config never turns agentout off unseen."""
    line = f"agentout: hook: {problem}; nothing changed"
    session = payload.get("session_id")
    if not isinstance(session, str) or not session:
        return "", line
    from agentout.agents._config import first_time

    if not first_time(session, problem):
        return "", line
    said = (
        f"agentout: bad config: {problem}. Until it is fixed, agentout leaves every tool "
        "result as it was (`agentout init --show` checks it)."
    )
    reply = {
        "systemMessage": said,
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": said},
    }
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")) + "\n", line


def _compacting(payload: dict[str, Any]) -> tuple[str, str | None]:
    """``SessionStart`` (every source: startup, resume, clear, compact): agentout's
    functions added to the session's shell (``agentout.agents.claude_shell``). After a
    compaction (and at ``PreCompact``) the outputs the session was shown leave the
    model's context, so a repeat of one is no longer "the same as before". Nothing is
    printed: either event reads plain stdout as text for the model."""
    session = payload.get("session_id")
    event = payload.get("hook_event_name")
    said = _functions_added() if event == "SessionStart" else None
    compacted = event == "PreCompact" or payload.get("source") == "compact"
    if compacted and isinstance(session, str) and session:
        from agentout.agents._seen import forget

        forget(session)
    return "", None if said is None else f"agentout: hook: {said}"


def _functions_added() -> str | None:
    """The session's functions written (unless ``[shell] enabled = false``); None, or
    why not, in one line."""
    import os

    from agentout.agents.claude_shell import agentout_script, session_start
    from agentout.errors import InputError

    try:
        if not _shell_settings()["enabled"]:
            return None
    except InputError as exc:
        return f"{exc}; no function added"
    script = agentout_script()
    if script is None:
        return "no agentout script beside this Python; no function added"
    return session_start(os.environ, script)


def _shell_settings() -> dict[str, Any]:
    """The config's ``[shell]`` table, the whole file checked (``agentout.agents._config``)."""
    from agentout.agents._config import load_checked, shell_settings

    config, source = load_checked()
    return shell_settings(config, source)


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


def respond(agent: str, stdin: IO[bytes]) -> tuple[str, str | None]:
    """One hook call, read from ``stdin``, within its time limit: (what to print on
    stdout, the one line for stderr or None). Never raises: at worst, no answer."""
    out, err = "", None
    _limit[0] = TIME_LIMITS.get(agent, TIME_LIMIT)
    previous = None
    if hasattr(signal, "setitimer"):
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, _limit[0])
    try:
        raw = _read_limited(stdin, _read_size(agent))
        out, err = answer(agent, raw)
    except _TimeLimit:
        out, err = "", f"agentout: hook: no answer within {_limit[0]:g}s; nothing changed"
    except Exception as exc:  # fail open: the command runs as it was
        out, err = "", f"agentout: hook: {type(exc).__name__}: {exc}; nothing changed"
    finally:
        if previous is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    out = out or _NOTHING.get(agent, "")
    return out, (err.replace("\n", " ") if err else None)


def main(argv: Sequence[str], stdin: IO[bytes] | None = None) -> int:
    """The whole hook: always exit status 0 and, at worst, no answer."""
    agent = argv[0] if argv else ""
    out, err = respond(agent, stdin if stdin is not None else sys.stdin.buffer)
    try:
        if out:
            sys.stdout.write(out)
            sys.stdout.flush()
        if err:
            sys.stderr.write(err + "\n")
    except OSError:
        pass
    return 0
