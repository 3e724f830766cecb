"""``cleanup_temp_files``: remove this server's spilled files past an age."""

from __future__ import annotations

import threading
from typing import Annotated, Any, TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from agentout.deliver.hybrid import deliver_records
from agentout.mcp.config import ServerConfig
from agentout.mcp.results import Reply, to_result
from agentout.mcp.tools._common import MaxTokens, Threshold, packing, tool_errors

NAME = "cleanup_temp_files"
DESCRIPTION = (
    "Delete agentout's spilled result files older than max_age_days (default 7); returns "
    "how many, the bytes freed and their names."
)


class CleanupResult(TypedDict):
    """What was removed and freed (with dry_run: what would be); files by name."""

    removed: int
    bytes_freed: int
    dry_run: bool
    files: list[str]


def register(server: MCPServer[Any], config: ServerConfig) -> None:
    @server.tool(
        name=NAME,
        description=DESCRIPTION,
        annotations=ToolAnnotations(destructive_hint=True, idempotent_hint=True),
    )
    async def cleanup_temp_files(
        max_age_days: Annotated[
            float,
            Field(
                ge=0,
                le=36500,
                description="Remove spilled files last written more than this many days "
                "ago; 0 removes them all.",
            ),
        ] = 7,
        dry_run: Annotated[bool, Field(description="Only list what would be removed.")] = False,
        max_tokens: MaxTokens = None,
        inline_threshold_bytes: Threshold = None,
    ) -> Annotated[CallToolResult, CleanupResult]:
        def work(_cancel: threading.Event) -> CallToolResult:
            return _clean(config, max_age_days, dry_run, max_tokens, inline_threshold_bytes)

        return await config.calls.run(work)


def _clean(
    config: ServerConfig,
    max_age_days: float,
    dry_run: bool,
    max_tokens: int | None,
    inline_threshold_bytes: int | None,
) -> CallToolResult:
    store = config.store
    with tool_errors():
        limits = config.limits(max_tokens, inline_threshold_bytes)
        removed = store.clean(max_age_days * 86400, dry_run=dry_run)
        freed = sum(stored.size for stored in removed)
        names = [stored.path.name for stored in removed]
        header = {  # a dry run says what a real one would do, in words of its own
            "would_remove" if dry_run else "removed": len(removed),
            "would_free" if dry_run else "bytes_freed": freed,
            "store": str(store.root),
        }
        delivery = deliver_records(
            ({"file": stored.path.name, "bytes": stored.size} for stored in removed),
            header=header,
            # the list of files, and the files' names cut from the structured content
            max_tokens=packing(limits, ("clean", ".jsonl"), ("mcp", ".json")).max_tokens,
            inline_threshold=limits.inline_threshold,
            tokenizer=limits.tokenizer,
            store=store,
            kind="clean",
        )
        data: dict[str, Any] = {
            "removed": len(removed),
            "bytes_freed": freed,
            "dry_run": dry_run,
            "files": names,
        }
        reply = Reply.of_delivery(delivery)
        return to_result(Reply(reply.text, reply.refs, data, meta=reply.meta), limits)
