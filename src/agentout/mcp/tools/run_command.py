"""``run_command`` (only with ``--allow-commands``): one allowed executable, no shell.

The command runs as ``agentout run`` runs it (``agentout.sources.command.run``): in its
own process group, its output drained at pipe speed, secrets hidden, and delivered as
printed when it fits, else its reducer's form or the lines that matter, the whole kept in
the server's store. Here it runs in the first root, never on the server's stdin, and a
cancelled call (or a stopping server) ends its process group. A command that exits with
another status than 0 is a failed call (``isError``), its status in ``_meta``; the text
adds no line for it.
"""

from __future__ import annotations

import subprocess
import threading
from typing import Annotated, Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from agentout.mcp.config import ServerConfig
from agentout.mcp.results import Reply, to_result
from agentout.mcp.tools._common import Argument, MaxTokens, Threshold, tool_errors

NAME = "run_command"
DESCRIPTION = (
    "Run one allowed executable ({allowed}) with its arguments, no shell, in the project "
    "root, and return its output as printed when it fits, else the lines that matter "
    "(errors first) within max_tokens; the complete output is kept in a file."
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
            budget = (max_tokens, inline_threshold_bytes)
            return _run(config, command, timeout_seconds, budget, cancel)

        return await config.calls.run(work)


def _run(
    config: ServerConfig,
    command: list[str],
    timeout: float,
    budget: tuple[int | None, int | None],
    cancel: threading.Event,
) -> CallToolResult:
    from agentout.mcp.escapes import allowed_argv
    from agentout.sources.command import run

    with tool_errors():
        limits = config.limits(*budget)
        done = run(
            allowed_argv(config.allow, config.roots, command),
            max_tokens=limits.max_tokens,  # as agentout run: the markers name the log
            inline_threshold=limits.inline_threshold,
            tokenizer=limits.tokenizer,
            store=config.store,
            timeout=timeout,
            cwd=config.roots.first,
            stdin=subprocess.DEVNULL,  # stdin is the protocol's channel over stdio
            cancel=cancel,
        )
        outcome, delivery = done.outcome, done.delivery
        meta: dict[str, Any] = {"exit": outcome.exit_status, "duration": round(outcome.duration, 3)}
        if delivery.warning:
            meta["warning"] = delivery.warning
        refs = (delivery.ref,) if delivery.ref is not None else ()
        # timed out, cancelled, could not start, or exited with another status than 0: the
        # client's mark of a failed call stands for the shell's exit status, which the text
        # does not repeat (it is the output as printed, or agentout's form of it)
        failed = outcome.error is not None or outcome.exit_status != 0
        return to_result(Reply(delivery.text, refs, error=failed, meta=meta), limits)
