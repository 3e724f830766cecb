"""``run_tests``: the project's pytest suite through agentout's plugin, failures that matter."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from agentout.errors import AgentoutError
from agentout.mcp.config import ServerConfig
from agentout.mcp.results import Reply, to_result
from agentout.mcp.tools._common import MAX_ITEMS, SHORT, MaxTokens, Short, tool_errors
from agentout.store.spill import SpillRef, SpillStore

NAME = "run_tests"
DESCRIPTION = (
    "Run the project's pytest suite (or chosen tests) and return the failures that matter "
    "within max_tokens; the full report is kept in a file."
)


def register(server: MCPServer[Any], config: ServerConfig) -> None:
    @server.tool(
        name=NAME,
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True),
    )
    async def run_tests(
        tests: Annotated[
            list[Short],
            Field(
                max_length=MAX_ITEMS,
                description="Test files, directories or node ids (file.py::test_name) "
                "under the project root; default: the whole suite.",
            ),
        ] = [],  # noqa: B006 - pydantic copies defaults
        keyword: Annotated[
            str | None,
            Field(max_length=SHORT, description="Only tests matching this -k expression."),
        ] = None,
        marker: Annotated[
            str | None,
            Field(max_length=SHORT, description="Only tests matching this -m expression."),
        ] = None,
        focus: Annotated[
            Literal["summary", "critical", "first-failure", "failures", "debug"],
            Field(
                description="summary: counts; critical: errors only; first-failure: one per "
                "file; failures: all; debug: all, with source lines."
            ),
        ] = "failures",
        max_failures: Annotated[
            int | None, Field(ge=1, le=100_000, description="Stop after this many failures.")
        ] = None,
        timeout_seconds: Annotated[
            float, Field(gt=0, le=86_400, description="Stop the run after this long.")
        ] = 900,
        max_tokens: MaxTokens = None,
    ) -> CallToolResult:
        def work(cancel: threading.Event) -> CallToolResult:
            with tool_errors():
                argv = _argv(config, tests, keyword, marker, focus, max_failures, max_tokens)
                return _run(config, argv, timeout_seconds, max_tokens, cancel)

        return await config.calls.run(work)


def _argv(
    config: ServerConfig,
    tests: list[str],
    keyword: str | None,
    marker: str | None,
    focus: str,
    max_failures: int | None,
    max_tokens: int | None,
) -> list[str]:
    limits = config.limits(max_tokens)
    selected = []
    for test in tests:
        # pytest reads options from "-x" and whole argument files from "@FILE"
        if test.startswith(("-", "@")):
            raise ToolError(f"{test}: a test, not an option (use keyword, marker)")
        path, separator, node = test.partition("::")
        # what pytest gets is the checked path itself, never the caller's string
        selected.append(f"{config.roots.resolve(path)}{separator}{node}")
    # `agentout test`, as a person runs it: pytest in the project's Python (its .venv,
    # else python on PATH; this server's own Python has neither its pytest nor its
    # packages), agentout's plugin there or JUnit XML where it is not; the budget as
    # `agentout test` has it: the report names its full report, so the link to it comes
    # only where room is left
    argv = [sys.executable, "-m", "agentout", "test", f"--focus={focus}"]
    argv += [f"--max-tokens={limits.max_tokens}", "--format=records"]
    argv += [f"--tokenizer={limits.tokenizer.name}", "--"]
    # attached, so a value starting with "-" is an expression, never an option; an empty
    # one selects nothing out, as pytest's own -k "" does (a bare -k would take the next
    # argument as its expression)
    if keyword:
        argv.append(f"-k{keyword}")
    if marker:
        argv.append(f"-m{marker}")
    if max_failures is not None:
        argv.append(f"--maxfail={max_failures}")
    return argv + selected


def _run(
    config: ServerConfig,
    argv: list[str],
    timeout: float,
    max_tokens: int | None,
    cancel: threading.Event,
) -> CallToolResult:
    from agentout import process

    limits, store = config.limits(max_tokens), config.store
    # the test run spills into this server's namespace, local and remote alike; the
    # ledger's row is this server's (one delivery, one row)
    env = {**os.environ, "AGENTOUT_SPILL_DIR": str(store.root), "AGENTOUT_STORE": store.address}
    env["AGENTOUT_LEDGER"] = "0"
    output = bytearray()
    done = process.run(
        argv,
        output.extend,
        cwd=config.roots.first,
        env=env,
        stdin=subprocess.DEVNULL,  # stdin is the protocol's channel over stdio
        timeout=timeout,
        cancel=cancel,
    )
    text = output.decode("utf-8", "replace")
    if done.error:
        text = f"run_tests: {done.error}\n{text}"
    refs = []  # the report names its full report by its reference in the store
    found = re.findall(r"(?m)^F full=([0-9a-f]{16})$", text)
    for ident in dict.fromkeys(found):
        with contextlib.suppress(AgentoutError, OSError):
            refs.append(_spill_ref(store, store.find_id(ident)))
    # 0 passed, 1 failed, 5 no tests: the run's own answer; 2-4: it could not run
    failed_to_run = done.error is not None or done.exit_status not in (0, 1, 5)
    meta = {"exit": done.exit_status}
    return to_result(Reply(text, tuple(refs), error=failed_to_run, meta=meta), limits)


def _spill_ref(store: SpillStore, name: str) -> SpillRef:
    path = store.resolve(name)
    with store.open_ref(name) as handle:
        data = handle.read()
    lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    return SpillRef(path=path, ref=path.name, size=len(data), lines=lines)
