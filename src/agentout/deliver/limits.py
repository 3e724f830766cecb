"""How much of a command's output the agent's client shows inline: what a command's text
is given whole within, and cut to past it. Kept apart, importing nothing, for the task
runners' line shell (one process per recipe line)."""

from __future__ import annotations

import os
from collections.abc import Mapping

__all__ = [
    "CLIENT_FAILURE_CHARS",
    "CLIENT_LIMIT_CHARS",
    "CUT_CONTEXT_CHARS",
    "ENV_CLIENT_LIMIT",
    "client_limit",
    "failure_threshold",
    "text_threshold",
]

# What Claude Code's Bash tool shows of a command's output inline; past it the output goes
# to a file and the model sees a short preview. BASH_MAX_OUTPUT_LENGTH sets it.
CLIENT_LIMIT_CHARS = 30_000
ENV_CLIENT_LIMIT = "BASH_MAX_OUTPUT_LENGTH"
# Past that limit Claude Code keeps the output in a file and shows its first 2,000
# characters, so a cut need not fill the limit: output with facts to find (a reducer's form,
# a build's errors) gives every one of them, then as much context as that preview holds
# (about 500 tokens); the rest is a page away in the store.
CUT_CONTEXT_CHARS = 2_000
_ENV_LIMIT_MAX = 150_000  # Claude Code takes no more from the variable
# Of a command that failed (exit status not 0) Claude Code shows at most 10,000 characters:
# past that, the first 5,000 and the last 5,000 of the first 30,000, the rest dropped.
CLIENT_FAILURE_CHARS = 10_000


def client_limit(environ: Mapping[str, str] | None = None) -> int:
    """Characters of a command's output the agent's client shows inline: Claude Code's
    30,000, or ``$BASH_MAX_OUTPUT_LENGTH`` read as Claude Code reads it (its leading
    digits, at most 150,000)."""
    given = (os.environ if environ is None else environ).get(ENV_CLIENT_LIMIT, "").strip()
    digits = ""
    for char in given.lstrip("+"):
        if not char.isdigit():
            break
        digits += char
    if digits and int(digits) > 0:
        return min(int(digits), _ENV_LIMIT_MAX)
    return CLIENT_LIMIT_CHARS


def text_threshold(value: int | None = None) -> int:
    """The inline threshold of a command's text output: ``value``, else
    ``$AGENTOUT_INLINE_THRESHOLD``, else what the client shows inline (``client_limit``)."""
    from agentout.store.capture import ENV_THRESHOLD, resolve_threshold

    if value is not None or os.environ.get(ENV_THRESHOLD, "").strip():
        return resolve_threshold(value)
    return client_limit()


def failure_threshold(threshold: int, given: int | None = None) -> int:
    """The inline threshold of a command that failed: what the client shows whole of it
    (``CLIENT_FAILURE_CHARS``), unless a threshold was given (``given``,
    ``$AGENTOUT_INLINE_THRESHOLD``)."""
    from agentout.store.capture import ENV_THRESHOLD

    if given is not None or os.environ.get(ENV_THRESHOLD, "").strip():
        return threshold
    return min(threshold, CLIENT_FAILURE_CHARS)
