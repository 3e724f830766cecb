"""``notes_context``: chosen notes of a Markdown folder under the roots, packed."""

from __future__ import annotations

import threading
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from agentout.deliver.hybrid import Delivery, PackSettings, Spool, finish
from agentout.errors import InputError
from agentout.mcp.config import ServerConfig
from agentout.mcp.fit import Limits
from agentout.mcp.results import Reply, to_result
from agentout.mcp.tools._common import (
    MAX_ITEMS,
    SHORT,
    MaxTokens,
    Short,
    Threshold,
    tool_errors,
)
from agentout.pack import pack
from agentout.records import Result
from agentout.store.spill import SpillRef

NAME = "notes_context"
DESCRIPTION = (
    "Return chosen notes of a Markdown notes folder (by id or text query): summaries first, "
    "bodies and links on request, within max_tokens."
)

__all__ = ["deliver_result", "register"]


def register(server: MCPServer[Any], config: ServerConfig) -> None:
    @server.tool(
        name=NAME,
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    async def notes_context(
        directory: Annotated[
            str,
            Field(max_length=SHORT, description="The folder of Markdown notes (under the roots)."),
        ] = ".",
        notes: Annotated[
            list[Short],
            Field(max_length=MAX_ITEMS, description="Notes to include: ids, paths or file names."),
        ] = [],  # noqa: B006 - pydantic copies defaults
        query: Annotated[
            str | None,
            Field(max_length=SHORT, description="Add the notes best matching this text."),
        ] = None,
        limit: Annotated[
            int, Field(ge=1, le=1000, description="At most this many query matches.")
        ] = 10,
        with_body: Annotated[bool, Field(description="Add each note's Markdown body.")] = False,
        with_edges: Annotated[bool, Field(description="Add each note's links, both ways.")] = False,
        max_tokens: MaxTokens = None,
        inline_threshold_bytes: Threshold = None,
    ) -> CallToolResult:
        def work(_cancel: threading.Event) -> CallToolResult:
            chosen = dict(
                notes=notes, query=query, limit=limit, with_body=with_body, with_edges=with_edges
            )
            return _context(config, directory, chosen, max_tokens, inline_threshold_bytes)

        return await config.calls.run(work)


def _context(
    config: ServerConfig,
    directory: str,
    chosen: dict[str, Any],
    max_tokens: int | None,
    inline_threshold_bytes: int | None,
) -> CallToolResult:
    from agentout.sources.notes import context_result, load_vault

    roots = config.roots
    with tool_errors():
        if not chosen["notes"] and not chosen["query"]:
            raise ToolError("name notes with notes=[ID, ...], or find them with query=TEXT")
        limits = config.limits(max_tokens, inline_threshold_bytes)
        real = roots.resolve(directory)
        if not real.is_dir():
            why = "not a folder of notes" if real.exists() else "no such folder"
            raise InputError(why, directory)
        roots.check_tree(real)
        vault = load_vault(roots.openable(real))
        result = context_result(vault, **chosen)
        meta: dict[str, Any] = {}
        if vault.problems:
            meta["problems"] = [str(p) for p in vault.problems[:20]]
        delivery = deliver_result(result, limits, kind="notes")
        return to_result(Reply.of_delivery(delivery, **meta), limits)


def deliver_result(result: Result, limits: Limits, kind: str) -> Delivery:
    """``result`` as the CLI prints it within the budget (``agentout notes context``): the
    same page, inline when it is whole and within the inline threshold; else the complete
    rendering is spilled and the page names it with one field more, ``ref=NAME`` in its
    header (what ``read_output`` takes)."""
    settings = PackSettings(limits.max_tokens, None, "records", limits.tokenizer)
    spool = Spool(
        threshold=limits.inline_threshold,
        kind=kind,
        suffix=".txt",
        store=limits.store,
        by_content=True,
    )
    spool.write(pack(result, tokenizer=limits.tokenizer).text.encode("utf-8"))

    def inline(limited: bool) -> Any:
        return settings.pack(result, limited=limited)

    def reference(ref: SpillRef, _head: dict[str, Any]) -> tuple[Result, None]:
        named = {**result.header, "ref": ref.ref}
        return Result(result.records, named, result.summary, result.total), None

    return finish(spool, "auto", inline, settings, result.header, reference)
