"""What every tool module shares: argument types, limits, and errors as error results."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import replace
from typing import Annotated

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from agentout.errors import AgentoutError
from agentout.mcp.config import ServerConfig
from agentout.mcp.fit import DEFAULT_MAX_TOKENS, MAX_TOKENS, MIN_TOKENS, SPILL_URI, Limits
from agentout.mcp.results import reserve
from agentout.tokens.truncate import truncate_string

__all__ = [
    "MAX_ITEMS",
    "MAX_TEXT",
    "SHORT",
    "Argument",
    "MaxTokens",
    "Short",
    "Threshold",
    "packing",
    "readable",
    "tool_errors",
]

MAX_TEXT = 8 << 20  # characters of a text argument (count_tokens, a command's argument)
MAX_ITEMS = 1000
SHORT = 4096  # characters of a pattern, a query, a path
# An error message repeats the caller's argument, which may be huge: it is cut to fewer
# tokens than the smallest budget a call may ask for, so an error is within budget too.
_ERROR_TOKENS = 150

MaxTokens = Annotated[
    int | None,
    Field(
        ge=MIN_TOKENS,
        le=MAX_TOKENS,
        description="Token budget of the result, counted exactly (default: the server's, "
        f"{DEFAULT_MAX_TOKENS} unless started with --max-tokens); what does not fit is kept "
        "in a file the result names.",
    ),
]
Threshold = Annotated[
    int | None,
    Field(
        ge=0,
        le=1 << 30,
        description="Results up to this many bytes come inline; larger ones are kept in a "
        "file and summarised (default $AGENTOUT_INLINE_THRESHOLD or 8192).",
    ),
]
Short = Annotated[str, Field(max_length=SHORT)]
Argument = Annotated[str, Field(max_length=MAX_TEXT)]


@contextlib.contextmanager
def tool_errors() -> Iterator[None]:
    """agentout's own errors (bad input, a refused path) become the tool's error result."""
    try:
        yield
    except ToolError as exc:
        raise ToolError(clipped(str(exc))) from exc
    except (AgentoutError, ValueError, OSError) as exc:
        raise ToolError(clipped(str(exc))) from exc


def clipped(message: str) -> str:
    return truncate_string(message, _ERROR_TOKENS)


def readable(config: ServerConfig, path: str) -> str:
    """A file a tool may read: under the roots, or spilled (agentout://spill/NAME)."""
    if path.startswith(SPILL_URI):
        return str(config.store.resolve(path[len(SPILL_URI) :]))
    return str(config.roots.resolve(path))


def packing(limits: Limits, *files: tuple[str, str]) -> Limits:
    """The limits a library call packs its text within: the call's budget less the room
    the links to the files it may spill take (one per (kind, suffix)), so that the text
    and the links together fit what the agent is shown. A budget under three times that
    room is left whole: the text then names its files, and the links are left out."""
    room = reserve(limits.tokenizer, *files)
    if limits.max_tokens < 3 * room:
        return limits
    return replace(limits, max_tokens=limits.max_tokens - room)
