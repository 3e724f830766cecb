"""Budgets for other MCP servers' results, fitted from the client side (the Claude Code
``PostToolUse`` hook), read from the ``[mcp]`` table of the user's config file::

    [mcp]
    max_tokens = 5000          # every MCP server's results (default 5000)
    tokenizer = "o200k"        # how they are counted (default: agentout's default)

    [mcp.servers.github]
    max_tokens = 8000          # this server's tools

    [mcp.servers.github.tools.search_code]
    max_tokens = 3000          # one tool of it

    [mcp.servers.playwright]
    enabled = false            # leave this server's results alone

The most specific setting wins: the tool's, then its server's, then ``[mcp]``'s.
``enabled = false`` at any level leaves those results as they are; agentout's own server
(``agentout``) is always left alone: its tools fit their results themselves.
"""

from __future__ import annotations

from collections.abc import Mapping

from agentout.errors import InputError

TYPE_CHECKING = False  # typing and dataclasses are not imported: the hook is timed
if TYPE_CHECKING:
    from typing import Any

__all__ = ["OWN_SERVER", "ClientBudget", "budget_for", "check", "split_tool_name"]

OWN_SERVER = "agentout"
_DEFAULT_TOKENS = 5000  # agentout.mcp.fit.DEFAULT_MAX_TOKENS (not imported: the hook is timed)
_MIN, _MAX = 200, 200_000  # agentout.mcp.fit.MIN_TOKENS, MAX_TOKENS
_KEYS = {"max_tokens", "tokenizer", "enabled", "servers", "tools"}


class ClientBudget:
    """A budget: ``max_tokens``, counted by ``tokenizer`` (None: agentout's default)."""

    __slots__ = ("max_tokens", "tokenizer")

    def __init__(self, max_tokens: int, tokenizer: str | None = None) -> None:
        self.max_tokens, self.tokenizer = max_tokens, tokenizer

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ClientBudget):
            return NotImplemented
        return (self.max_tokens, self.tokenizer) == (other.max_tokens, other.tokenizer)

    def __hash__(self) -> int:
        return hash((self.max_tokens, self.tokenizer))

    def __repr__(self) -> str:
        return f"ClientBudget({self.max_tokens!r}, {self.tokenizer!r})"


def split_tool_name(name: str) -> tuple[str, str] | None:
    """(server, tool) of Claude Code's ``mcp__SERVER__TOOL``; None for any other name."""
    if not name.startswith("mcp__"):
        return None
    server, sep, tool = name[5:].partition("__")
    return (server, tool) if sep and server and tool else None


def _table(node: Any, where: str, source: str) -> Mapping[str, Any]:
    if node is None:
        return {}
    if not isinstance(node, Mapping):
        raise InputError(f"{where} must be a table", source)
    unknown = sorted(set(node) - _KEYS)
    if unknown:
        known = ", ".join(sorted(_KEYS - {"servers", "tools"}))
        raise InputError(f"{where}: unknown key {unknown[0]!r} (known: {known})", source)
    return node


def budget_for(
    config: Mapping[str, Any], server: str, tool: str, *, source: str = "config.toml"
) -> ClientBudget | None:
    """The budget for ``server``'s ``tool``, or None when its results are left alone.
    A bad value raises ``InputError`` naming ``source`` and the key."""
    if server == OWN_SERVER:
        return None
    top = _table(config.get("mcp"), "mcp", source)
    servers = top.get("servers") or {}
    if not isinstance(servers, Mapping):
        raise InputError("mcp.servers must be a table", source)
    own = _table(servers.get(server), f"mcp.servers.{server}", source)
    tools = own.get("tools") or {}
    if not isinstance(tools, Mapping):
        raise InputError(f"mcp.servers.{server}.tools must be a table", source)
    leaf = _table(tools.get(tool), f"mcp.servers.{server}.tools.{tool}", source)
    levels = [
        ("mcp", top),
        (f"mcp.servers.{server}", own),
        (f"mcp.servers.{server}.tools.{tool}", leaf),
    ]
    tokens, tokenizer = _DEFAULT_TOKENS, None
    for where, table in levels:
        enabled, max_tokens, named = _level(table, where, source)
        if not enabled:
            return None
        tokens = tokens if max_tokens is None else max_tokens
        tokenizer = tokenizer if named is None else named
    return ClientBudget(tokens, tokenizer)


def _level(
    table: Mapping[str, Any], where: str, source: str
) -> tuple[bool, int | None, str | None]:
    """(enabled, max_tokens, tokenizer) of one level, each checked; None: not set there."""
    enabled = table.get("enabled", True)
    if not isinstance(enabled, bool):
        raise InputError(f"{where}.enabled must be true or false", source)
    value = table.get("max_tokens")
    if value is not None and (
        isinstance(value, bool) or not isinstance(value, int) or not _MIN <= value <= _MAX
    ):
        raise InputError(
            f"{where}.max_tokens must be a whole number from {_MIN} to {_MAX}, got {value!r}",
            source,
        )
    named = table.get("tokenizer")
    if named is not None:
        if not isinstance(named, str):
            raise InputError(f"{where}.tokenizer must be a string", source)
        from agentout.tokens import UnknownTokenizerError, tokenizer_name

        try:
            named = tokenizer_name(named)
        except UnknownTokenizerError as exc:
            raise InputError(f"{where}.tokenizer: {exc}", source) from None
    return enabled, value, named


def check(config: Mapping[str, Any], *, source: str = "config.toml") -> None:
    """Every level of the ``[mcp]`` table checked, every server's and tool's: the first
    bad value raises ``InputError`` naming ``source`` and the key (``budget_for`` checks
    only the levels of the tool it is asked about)."""
    top = _table(config.get("mcp"), "mcp", source)
    _level(top, "mcp", source)
    servers = top.get("servers") or {}
    if not isinstance(servers, Mapping):
        raise InputError("mcp.servers must be a table", source)
    for server in sorted(servers):
        where = f"mcp.servers.{server}"
        own = _table(servers[server], where, source)
        _level(own, where, source)
        tools = own.get("tools") or {}
        if not isinstance(tools, Mapping):
            raise InputError(f"{where}.tools must be a table", source)
        for tool in sorted(tools):
            _level(
                _table(tools[tool], f"{where}.tools.{tool}", source),
                f"{where}.tools.{tool}",
                source,
            )
