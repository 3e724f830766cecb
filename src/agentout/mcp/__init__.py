"""agentout over MCP: the ``agentout serve`` server, and budgets for anyone's MCP tools.

    >>> from agentout.mcp import budgeted                      # doctest: +SKIP
    >>> @server.tool()
    ... @budgeted(max_tokens=8000, inline_threshold_bytes=8192)
    ... def search(query: str) -> list[Hit]: ...

``budgeted`` (one tool), ``budget_server`` / ``BudgetMiddleware`` (every tool of an SDK
server) and ``create_server`` (agentout's own tools) need the ``mcp`` extra
(``uv tool install '.[mcp]'`` in agentout's folder); they are imported on first use, so
importing this package costs nothing. ``agentout.mcp.fit`` (fitting text and JSON) needs no SDK.
"""

from __future__ import annotations

from agentout._lazy import attach

TYPE_CHECKING = False  # typing is not imported at run time: the hook imports budgets

if TYPE_CHECKING:
    from agentout.mcp.config import ServerConfig
    from agentout.mcp.middleware import BudgetMiddleware, budget_server, budgeted
    from agentout.mcp.server import create_server

__all__ = ["BudgetMiddleware", "ServerConfig", "budget_server", "budgeted", "create_server"]

_WHERE = {
    "BudgetMiddleware": "agentout.mcp.middleware",
    "budget_server": "agentout.mcp.middleware",
    "budgeted": "agentout.mcp.middleware",
    "ServerConfig": "agentout.mcp.config",
    "create_server": "agentout.mcp.server",
}


if not TYPE_CHECKING:  # for type checkers the imports above are the package's names
    __getattr__, __dir__ = attach(__name__, _WHERE)
