"""``count_tokens``: the exact tokens of a text, or of a file under the roots or spilled."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from agentout.mcp.config import ServerConfig
from agentout.mcp.results import Reply, to_result
from agentout.mcp.tools._common import MAX_TEXT, SHORT, readable, tool_errors

NAME = "count_tokens"
DESCRIPTION = (
    "Count the exact tokens of a text or a file (o200k_base unless another tokenizer is named)."
)


class CountResult(TypedDict):
    """The exact count of the text (or file) by the tokenizer named (and ``approx: true``
    when a run of over 1 MiB without a token boundary had to be cut: off by a token or so
    at each cut)."""

    tokens: int
    chars: int
    tokenizer: str
    source: str


def register(server: MCPServer[Any], config: ServerConfig) -> None:
    @server.tool(
        name=NAME,
        description=DESCRIPTION,
        annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True),
    )
    async def count_tokens(
        text: Annotated[
            str | None, Field(max_length=MAX_TEXT, description="The text to count.")
        ] = None,
        path: Annotated[
            str | None,
            Field(
                max_length=SHORT,
                description="A file to count instead (under the project roots, or an "
                "agentout://spill/ URI).",
            ),
        ] = None,
        tokenizer: Annotated[
            str | None,
            Field(
                max_length=SHORT,
                description="o200k_base (default), cl100k_base, a model name (gpt-4o, "
                "gpt-4), chars4, or hf:PATH to a tokenizer.json under the roots.",
            ),
        ] = None,
    ) -> Annotated[CallToolResult, CountResult]:
        def work(_cancel: threading.Event) -> CallToolResult:
            return _count(config, text, path, tokenizer)

        return await config.calls.run(work)


def _count(
    config: ServerConfig, text: str | None, path: str | None, tokenizer: str | None
) -> CallToolResult:
    from agentout.read.text import read_text
    from agentout.tokens import count_stream_cuts

    with tool_errors():
        if (text is None) == (path is None):
            raise ToolError("give either text or path (exactly one of them)")
        tok = config.tokenizers.get(tokenizer)
        cuts = 0  # runs of over 1 MiB without a token boundary, cut anyway
        if text is not None:
            tokens, chars, source = tok.count(text), len(text), "text"
        else:
            assert path is not None
            lengths: list[int] = []

            def pieces(real: str = readable(config, path), name: str = path) -> Iterator[str]:
                for piece in read_text(real, name=name):  # 1 MiB at a time
                    lengths.append(len(piece))
                    yield piece

            tokens, cuts = count_stream_cuts(pieces(), tok)
            chars, source = sum(lengths), path
        data: dict[str, Any] = {
            "tokens": tokens,
            "chars": chars,
            "tokenizer": tok.name,
            "source": source,
        }
        approx = " (approx)" if cuts else ""
        if cuts:
            data["approx"] = True
        said = f"{tokens} tokens{approx} ({tok.name}), {chars} characters: {source}\n"
        return to_result(Reply(said, structured=data), config.limits(None))
