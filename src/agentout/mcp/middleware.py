"""Budgeting the tools of any MCP server built on the official Python SDK.

Two ways, the same result (``fit_result``): a result that fits is sent whole; else every
channel fits the budget, the complete result is spilled and referenced, and a declared
output schema still validates (``results.fit_call_result``). The text an agent reads of a
result holding lists of records is packed as ``agentout fit`` packs them
(``fit.fit_records``): compact, terser views and cut strings before records are left
out, several lists sharing the budget, each saying how many of its items it shows. Other
text is cut at line boundaries, the lines that matter kept.

- ``@budgeted(...)`` on one tool function, under the server's own ``@server.tool()``;
  the tool keeps its name, parameters, description and output schema::

      @server.tool()
      @budgeted(max_tokens=8000, inline_threshold_bytes=8192)
      def search(query: str) -> list[Hit]: ...

- ``budget_server(server, ...)``: every tool of an ``MCPServer`` or a low-level
  ``Server``, present and future, through the SDK's server middleware.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import anyio.to_thread
from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver.utilities.context_injection import find_context_parameter
from mcp.server.mcpserver.utilities.func_metadata import func_metadata
from mcp.types import CallToolResult, ListToolsResult, TextContent

from agentout.mcp.fit import Limits, fit_records
from agentout.mcp.results import META_KEY, fit_call_result
from agentout.store.spill import SpillStore
from agentout.tokens import Tokenizer

__all__ = ["BudgetMiddleware", "budget_server", "budgeted", "fit_result"]

F = TypeVar("F", bound=Callable[..., Any])


def _value_of(result: CallToolResult) -> Any:
    """What the tool returned, as JSON: its structured content, else its text as JSON."""
    if result.structured_content is not None:
        return result.structured_content
    blocks = [block.text for block in result.content if isinstance(block, TextContent)]
    try:
        values = [json.loads(text) for text in blocks]
    except ValueError:
        return None
    return values[0] if len(values) == 1 else values


def _note(fitted: CallToolResult) -> str:
    meta = (fitted.meta or {}).get(META_KEY, {})
    spilled = meta.get("spilled") or []
    if not spilled:
        return f"[agentout: {meta.get('warning') or 'the rest was not kept'}]\n"
    # short: the envelope is part of the cost (the resource link says the rest)
    return f"[agentout: all of it: agentout show {spilled[0]['ref']}]\n"


def fit_result(
    result: CallToolResult, limits: Limits, *, output_schema: Mapping[str, Any] | None = None
) -> CallToolResult:
    """``result`` whole if it fits, else within ``limits`` (see the module doc)."""
    fitted = fit_call_result(result, limits, output_schema=output_schema)
    if fitted is result or fitted.is_error:
        return fitted
    text = fit_records(_value_of(result), limits, _note(fitted))
    if text is None:
        return fitted
    others = [block for block in fitted.content if not isinstance(block, TextContent)]
    return fitted.model_copy(update={"content": [TextContent(text=text), *others]})


def _limits_factory(
    max_tokens: int | None,
    inline_threshold_bytes: int | None,
    tokenizer: str | Tokenizer | None,
    store: SpillStore | None,
) -> Callable[[], Limits]:
    """Checked now (a bad budget fails at import); built per call, so that
    ``$AGENTOUT_INLINE_THRESHOLD`` is read when the call is made, like everywhere else."""
    Limits.of(max_tokens, inline_threshold_bytes, tokenizer, store)
    return functools.partial(Limits.of, max_tokens, inline_threshold_bytes, tokenizer, store)


def budgeted(
    fn: F | None = None,
    /,
    *,
    max_tokens: int | None = None,
    inline_threshold_bytes: int | None = None,
    tokenizer: str | Tokenizer | None = None,
    store: SpillStore | None = None,
) -> Any:
    """Make a tool function's every result fit ``max_tokens`` (default 5000).

    The result is converted as the SDK converts it (content blocks, and structured
    content for an annotated return type), then fitted; the wrapper returns that
    ``CallToolResult``, which the SDK validates against the tool's output schema. Use
    under ``@server.tool()``, with or without arguments (``@budgeted``).
    """
    limits = _limits_factory(max_tokens, inline_threshold_bytes, tokenizer, store)

    def decorate(function: F) -> F:
        context = find_context_parameter(function)
        metadata = func_metadata(function, skip_names=[context] if context else [])
        schema = metadata.output_schema

        def finish(value: Any) -> Any:
            converted = metadata.convert_result(value)
            if not isinstance(converted, CallToolResult):
                return converted  # a request for client input passes as it is
            return fit_result(converted, limits(), output_schema=schema)

        if inspect.iscoroutinefunction(function):

            @functools.wraps(function)
            async def run_async(*args: Any, **kwargs: Any) -> Any:
                value = await function(*args, **kwargs)
                return await anyio.to_thread.run_sync(finish, value)  # counting, file writes

            return run_async  # type: ignore[return-value]

        @functools.wraps(function)
        def run(*args: Any, **kwargs: Any) -> Any:
            return finish(function(*args, **kwargs))

        return run  # type: ignore[return-value]

    return decorate(fn) if fn is not None else decorate


class BudgetMiddleware:
    """SDK server middleware fitting every ``tools/call`` result into the budget.

    Output schemas come from the server's own tool list (``server``), else from the
    ``tools/list`` results that pass through; a schema never seen validates nothing
    here (the client still validates what it listed).
    """

    def __init__(
        self,
        *,
        max_tokens: int | None = None,
        inline_threshold_bytes: int | None = None,
        tokenizer: str | Tokenizer | None = None,
        store: SpillStore | None = None,
        server: Any = None,
    ) -> None:
        self._limits = _limits_factory(max_tokens, inline_threshold_bytes, tokenizer, store)
        self._server = server
        self._schemas: dict[str, Mapping[str, Any] | None] = {}

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        result = await call_next(ctx)
        if ctx.method == "tools/list" and result is not None:
            self._remember(result)
        if ctx.method != "tools/call" or result is None:
            return result
        call = result if isinstance(result, CallToolResult) else _as_call_result(result)
        if call is None:
            return result
        name = str((ctx.params or {}).get("name", ""))
        schema = await self._schema(ctx, name)
        limits = self._limits()
        return await anyio.to_thread.run_sync(
            functools.partial(fit_result, call, limits, output_schema=schema)
        )

    def _remember(self, result: HandlerResult) -> None:
        listing = result if isinstance(result, ListToolsResult) else None
        if listing is None and isinstance(result, dict):
            listing = ListToolsResult.model_validate(result)
        for tool in listing.tools if listing is not None else ():
            self._schemas[tool.name] = tool.output_schema

    async def _schema(
        self, ctx: ServerRequestContext[Any, Any], name: str
    ) -> Mapping[str, Any] | None:
        if name not in self._schemas and self._server is not None:
            list_tools = getattr(self._server, "list_tools", None)
            if callable(list_tools):  # MCPServer
                for tool in await list_tools():
                    self._schemas[tool.name] = tool.output_schema
            else:  # the low-level Server: its own tools/list handler
                entry = self._server.get_request_handler("tools/list")
                if entry is not None:
                    self._remember(await entry.handler(ctx, None))
        return self._schemas.get(name)


def _as_call_result(result: HandlerResult) -> CallToolResult | None:
    if isinstance(result, dict) and "content" in result:
        return CallToolResult.model_validate(result)
    return None


def budget_server(
    server: Any,
    *,
    max_tokens: int | None = None,
    inline_threshold_bytes: int | None = None,
    tokenizer: str | Tokenizer | None = None,
    store: SpillStore | None = None,
) -> BudgetMiddleware:
    """Budget every tool of ``server`` (an SDK ``MCPServer`` or low-level ``Server``)."""
    middleware = BudgetMiddleware(
        max_tokens=max_tokens,
        inline_threshold_bytes=inline_threshold_bytes,
        tokenizer=tokenizer,
        store=store,
        server=server,
    )
    server.middleware.append(middleware)
    return middleware
