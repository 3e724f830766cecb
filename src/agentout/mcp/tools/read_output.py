"""``read_output``: one page of a file this server spilled, by lines and/or pattern."""

from __future__ import annotations

import threading
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from agentout.mcp.config import ServerConfig
from agentout.mcp.fit import SPILL_URI
from agentout.mcp.results import Reply, to_result
from agentout.mcp.tools._common import SHORT, MaxTokens, tool_errors

NAME = "read_output"
DESCRIPTION = (
    "Page through a file an earlier result spilled, by line range and/or regex (or by "
    "records), within max_tokens; the last line gives the next range."
)


def register(server: MCPServer[Any], config: ServerConfig) -> None:
    @server.tool(
        name=NAME,
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    async def read_output(
        ref: Annotated[
            str,
            Field(
                max_length=SHORT,
                description="The spilled file: its name (ref=...), its agentout://spill/ "
                "URI, or its path in the store.",
            ),
        ],
        lines: Annotated[
            str | None,
            Field(
                max_length=64,
                description="Lines A:B (from 1), A: to the end, or :B; default all.",
            ),
        ] = None,
        grep: Annotated[
            str | None,
            Field(
                max_length=SHORT,
                description="Only lines matching this regular expression (RE2 syntax: "
                "linear time, no backreferences).",
            ),
        ] = None,
        ignore_case: Annotated[bool, Field(description="Match grep case-insensitively.")] = False,
        records: Annotated[
            str | None,
            Field(
                max_length=64,
                description="Records A:B (from 1), as a records page's last line gives "
                "them (agentout show ID --records A:B); instead of lines, grep and part.",
            ),
        ] = None,
        part: Annotated[
            int,
            Field(
                ge=1,
                le=1 << 30,
                description="Start at this part of the first line, when a long line is "
                "shown in parts (as the last line's next says).",
            ),
        ] = 1,
        max_tokens: MaxTokens = None,
    ) -> CallToolResult:
        def work(_cancel: threading.Event) -> CallToolResult:
            return _read(config, ref, lines, grep, ignore_case, part, max_tokens, records)

        return await config.calls.run(work)


def _read(
    config: ServerConfig,
    ref: str,
    lines: str | None,
    grep: str | None,
    ignore_case: bool,
    part: int,
    max_tokens: int | None,
    records: str | None = None,
) -> CallToolResult:
    from agentout.store.page import LineRange, page
    from agentout.store.page_records import page_records

    with tool_errors():
        limits = config.limits(max_tokens)
        name = ref[len(SPILL_URI) :] if ref.startswith(SPILL_URI) else ref
        if records is not None and (lines is not None or grep is not None or part != 1):
            raise ToolError(
                "records pages by records, lines/grep/part by lines: use one or the other"
            )
        try:
            tokens, tokenizer, store = limits.max_tokens, limits.tokenizer, config.store
            if records is not None:  # as `agentout show ID --records A:B`
                packed = page_records(
                    name,
                    records=LineRange.parse(records, "--records"),
                    max_tokens=tokens,
                    tokenizer=tokenizer,
                    store=store,
                )
            else:
                packed = page(
                    name,
                    lines=LineRange.parse(lines) if lines is not None else None,
                    grep=grep,
                    ignore_case=ignore_case,
                    max_tokens=tokens,
                    tokenizer=tokenizer,
                    store=store,
                    part=part,
                )
        except ValueError as exc:  # the library names its CLI flags
            message = str(exc)
            for flag in ("lines", "records", "grep", "part"):
                message = message.replace(f"--{flag}", flag)
            raise ToolError(message) from exc
        return to_result(Reply(packed.text), limits)
