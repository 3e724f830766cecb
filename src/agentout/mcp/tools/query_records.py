"""``query_records``: JSON/JSONL/YAML/Markdown records under the roots, queried and packed."""

from __future__ import annotations

import threading
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from agentout.errors import InputError
from agentout.mcp.config import ServerConfig
from agentout.mcp.results import Reply, to_result
from agentout.mcp.tools._common import (
    MAX_ITEMS,
    SHORT,
    MaxTokens,
    Short,
    Threshold,
    tool_errors,
)

NAME = "query_records"
DESCRIPTION = (
    "Query JSON/JSONL/YAML/Markdown records (BM25 text query, FIELD=VALUE, JMESPath filter, "
    "sort) and return the best matches within max_tokens; the complete matching set is kept "
    "in a file."
)


def register(server: MCPServer[Any], config: ServerConfig) -> None:
    @server.tool(
        name=NAME,
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    async def query_records(
        paths: Annotated[
            list[Short],
            Field(
                min_length=1,
                max_length=MAX_ITEMS,
                description="Files, directories or globs of JSON, JSONL, YAML or Markdown "
                "(front matter) records, under the project roots.",
            ),
        ],
        query: Annotated[
            str | None,
            Field(max_length=SHORT, description="Rank records by BM25 relevance to this text."),
        ] = None,
        where: Annotated[
            list[Short],
            Field(
                max_length=100,
                description="FIELD=VALUE exact matches (dotted paths), all required.",
            ),
        ] = [],  # noqa: B006 - pydantic copies defaults; the schema shows []
        filter: Annotated[
            str | None,
            Field(
                max_length=SHORT, description="Keep records this JMESPath expression is true for."
            ),
        ] = None,
        sort: Annotated[
            str | None,
            Field(max_length=256, description="Order by FIELD, or -FIELD descending."),
        ] = None,
        mode: Annotated[
            Literal["agent", "verbose"],
            Field(description="agent: summary fields, 3 records; verbose: every field, 10."),
        ] = "agent",
        limit: Annotated[
            int | None, Field(ge=1, le=100_000, description="At most this many records.")
        ] = None,
        max_tokens: MaxTokens = None,
        inline_threshold_bytes: Threshold = None,
    ) -> CallToolResult:
        def work(_cancel: threading.Event) -> CallToolResult:
            return _query(
                config,
                paths,
                dict(query=query, where=where, filter=filter, sort=sort, mode=mode, limit=limit),
                max_tokens,
                inline_threshold_bytes,
            )

        return await config.calls.run(work)


def _files(config: ServerConfig, paths: list[str]) -> list[str]:
    """Every file the paths name, each checked to be under the roots."""
    from agentout.sources.collection.load import LoadReport, expand

    roots = config.roots
    files: list[str] = []
    for given in paths:
        matches = roots.expand(given)
        if not matches:
            raise InputError("no files match this pattern", given)
        for real in matches:
            if real.is_dir():
                roots.check_tree(real)
                for name, _ in expand(str(real), LoadReport()):
                    roots.resolve(name)
            files.append(roots.openable(real))
    return files


def _query(
    config: ServerConfig,
    paths: list[str],
    how: dict[str, Any],
    max_tokens: int | None,
    inline_threshold_bytes: int | None,
) -> CallToolResult:
    from agentout.sources.collection import CollectionError
    from agentout.sources.collection import query as run_query

    with tool_errors():
        limits = config.limits(max_tokens, inline_threshold_bytes)
        files = _files(config, paths)
        try:
            answer = run_query(
                files,
                **how,
                max_tokens=limits.max_tokens,  # as the CLI packs: its link only if room
                tokenizer=limits.tokenizer,
                inline_threshold=limits.inline_threshold,
                store=config.store,  # its paging command reads as read_output's arguments
            )
        except CollectionError as exc:
            problems = [str(p) for p in exc.report.problems[:5]]
            more = f" ({'; '.join(problems)})" if len(problems) > 1 else ""
            raise ToolError(f"{exc}{more}") from exc
        meta: dict[str, Any] = {"matched": answer.matched, "files": answer.report.files}
        if answer.report.problems:
            meta["problems"] = [str(p) for p in answer.report.problems[:20]]
        refs = (answer.spill,) if answer.spill is not None else ()
        return to_result(Reply(answer.text, refs, meta=meta), limits)
