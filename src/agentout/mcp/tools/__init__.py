"""agentout's MCP tools, one module each: its argument schema, its handler, its library call.

Each module has ``NAME``, ``DESCRIPTION`` and ``register(server, config)``; a handler runs
its work in a worker thread (``config.calls``), so the server keeps answering meanwhile.
"""

from __future__ import annotations

from types import ModuleType

from agentout.mcp.tools import (
    cleanup_temp_files,
    count_tokens,
    notes_context,
    query_records,
    read_output,
    run_command,
    run_tests,
)

__all__ = ["TOOLS"]

TOOLS: tuple[ModuleType, ...] = (
    run_tests,
    query_records,
    notes_context,
    count_tokens,
    read_output,
    cleanup_temp_files,
    run_command,
)
