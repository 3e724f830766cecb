"""``run_command`` (only with ``--allow-commands``): one allowed executable, no shell."""

from __future__ import annotations

import shlex
import subprocess
import threading
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from agentout.mcp.config import ServerConfig
from agentout.mcp.results import Reply, to_result
from agentout.mcp.tools._common import Argument, MaxTokens, Threshold, packing, tool_errors

NAME = "run_command"
DESCRIPTION = (
    "Run one allowed executable ({allowed}) with its arguments, no shell, in the project "
    "root, and return the output lines that matter (errors first) within max_tokens; the "
    "complete output is kept in a file."
)


def register(server: MCPServer[Any], config: ServerConfig) -> None:
    if not config.allow:
        return

    @server.tool(
        name=NAME,
        description=DESCRIPTION.format(allowed=", ".join(sorted(config.allow.paths))),
        annotations=ToolAnnotations(destructive_hint=True, open_world_hint=True),
    )
    async def run_command(
        command: Annotated[
            list[Argument],
            Field(
                min_length=1,
                max_length=10_000,
                description="The argument vector: an allowed executable by bare name, "
                "then its arguments (no shell: nothing is expanded).",
            ),
        ],
        timeout_seconds: Annotated[
            float, Field(gt=0, le=86_400, description="Stop the command after this long.")
        ] = 600,
        max_tokens: MaxTokens = None,
        inline_threshold_bytes: Threshold = None,
    ) -> CallToolResult:
        def work(cancel: threading.Event) -> CallToolResult:
            limits = (max_tokens, inline_threshold_bytes)
            return _run(config, command, timeout_seconds, limits, cancel)

        return await config.calls.run(work)


def _run(
    config: ServerConfig,
    command: list[str],
    timeout: float,
    budget: tuple[int | None, int | None],
    cancel: threading.Event,
) -> CallToolResult:
    from agentout import process
    from agentout.sources.log import LogSink

    with tool_errors():
        limits = config.limits(*budget)
        argv = config.allow.argv(command)
        sink = LogSink(inline_threshold=limits.inline_threshold, store=config.store, kind="run")
        done = process.run(
            argv,
            sink.feed,
            cwd=config.roots.first,
            stdin=subprocess.DEVNULL,  # stdin is the protocol's channel over stdio
            timeout=timeout,
            cancel=cancel,
        )
        header: dict[str, Any] = {"cmd": _clip(shlex.join(command)), "exit": done.exit_status}
        if done.signal is not None:
            header["signal"] = done.signal
        if done.error is not None:
            header["error"] = done.error
        header["duration"] = f"{done.duration:.2f}s"
        room = packing(limits, ("run", ".log")).max_tokens
        delivery = sink.deliver(header, max_tokens=room, tokenizer=limits.tokenizer)
        reply = Reply.of_delivery(delivery, exit=done.exit_status)
        failed = done.error is not None
        return to_result(Reply(reply.text, reply.refs, error=failed, meta=reply.meta), limits)


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… (+{len(text) - limit} chars)"
