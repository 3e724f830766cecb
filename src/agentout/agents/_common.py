"""What every agent's ``init`` writes the same way: the MCP server and the instructions."""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from typing import Any

__all__ = ["instructions", "mcp_server"]


def mcp_server(agentout: Sequence[str]) -> dict[str, Any]:
    """``agentout serve`` as the stdio MCP server entry most agents read."""
    return {"command": agentout[0], "args": [*agentout[1:], "serve"]}


def instructions(agentout: Sequence[str] | None = None) -> tuple[str, ...]:
    """At most three lines for the agent's instructions file."""
    run = "agentout" if agentout is None else shlex.join(agentout)
    return (
        f"For commands with long output, run `{run} run -- CMD` (a pipeline: "
        f"`{run} run --shell 'CMD'`): it prints the lines that matter and keeps the rest "
        "for `agentout show ID`.",
        "The agentout MCP tools (read_output, query_records, run_tests, notes_context) "
        "return results within a token budget.",
    )
