"""What every agent's ``init`` writes the same way: the MCP server and the instructions."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

from agentout.errors import install_hint

__all__ = ["MCP_HINT", "check_hook", "instructions", "mcp_available", "mcp_server"]

MCP_HINT = f"the MCP server needs agentout's mcp extra: {install_hint('mcp')}"


def mcp_server(agentout: Sequence[str]) -> dict[str, Any]:
    """``agentout serve`` as the stdio MCP server entry most agents read."""
    return {"command": agentout[0], "args": [*agentout[1:], "serve"]}


def mcp_available() -> bool:
    """Whether the MCP SDK (agentout's ``mcp`` extra) is installed beside agentout."""
    try:
        import mcp  # noqa: F401  (init only: not a hook's path)
    except ImportError:
        return False
    return True


def instructions(
    agentout: Sequence[str] | None = None, *, reached: bool = False, mcp: bool = True
) -> tuple[str, ...]:
    """At most three lines for the agent's instructions file. ``reached``: agentout
    reduces the agent's commands by itself (Claude Code's session functions), so the
    agent is only told how to read what was left out; ``mcp``: the MCP server is there."""
    run = "agentout" if agentout is None else shlex.join(agentout)
    if reached:
        first = (
            "agentout shortens the output of your commands (tests, builds, linters, git): "
            "run the `agentout show ...` command it names to read what was left out."
        )
    else:
        first = (
            f"For commands with long output, run `{run} run -- CMD` (a pipeline: "
            f"`{run} run --shell 'CMD'`): it prints the lines that matter and keeps the rest "
            "for `agentout show ID`."
        )
    tools = (
        "The agentout MCP tools (read_output, query_records, run_tests, notes_context) "
        "return results within a token budget."
    )
    return (first, tools) if mcp else (first,)


def check_hook(
    agentout: Sequence[str], agent: str, payload: dict[str, Any], answer: bytes
) -> str | None:
    """Run the installed ``agentout hook AGENT`` on a harmless payload: None if it answers
    ``answer`` (stripped) with exit status 0 and nothing on stderr, as a hook must."""
    import json
    import subprocess

    try:
        done = subprocess.run(
            [*agentout, "hook", agent],
            input=json.dumps(payload).encode(),
            capture_output=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"the hook did not run: {exc}"
    if done.returncode != 0 or done.stdout.strip() != answer or done.stderr:
        return f"the hook answered exit {done.returncode}: {done.stderr.decode(errors='replace')}"
    return None
