"""What an agent's client would have shown the model of a command's output, without agentout.

The ledger's baseline. A program's whole output is not what the model reads: its client
shows it inline up to a limit and past it a preview, or a cut. So a delivery is set
against what that agent's client would have shown of the same output (``shown``),
besides the whole output (the raw side, as before):

- **Claude Code** (``claude``; measured in its 2.1.332 release, docs/agents/claude.md): a
  command that succeeded, up to ``CLAUDE_INLINE`` characters (``BASH_MAX_OUTPUT_LENGTH``,
  or the hook's ``bashOutputMaxChars``): the output, leading blank lines and trailing
  whitespace trimmed; past it, ``<persisted-output>`` with the output's size, the path
  of the file the client kept it in, and its first ``CLAUDE_PREVIEW`` characters (about
  860 tokens in all). A command that failed: ``Exit code N`` and the output, over
  ``CLAUDE_FAILURE_CUT`` characters its first and last ``CLAUDE_FAILURE_KEEP`` of its first
  ``CLAUDE_INLINE`` around ``... [N characters truncated] ...``; the rest is dropped.
- **OpenCode** (``opencode``): the first ``OPENCODE_LINES`` lines, at most
  ``OPENCODE_CHARS`` characters (its ``Truncate``; the rest in a file).
- **Gemini CLI** (``gemini``): its hook is handed the ``llmContent`` the model would read,
  and that is what its rows record as the raw side, so the raw side is the baseline.
- Any other agent (Codex, Cursor, Copilot CLI, an MCP client), and a program no agent ran:
  the client's limit is not known here, so the whole output is the baseline (``shown``
  gives None).

Counts are of characters as Python counts them (Claude Code counts UTF-16 units: text
outside the Basic Multilingual Plane, emoji among it, is a little over its limit here);
the preview's path is a path of the usual length, not the one the client would have
picked. ``agent_of`` tells the agent from the environment a command runs in.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False  # typing is not imported at run time: every run records a row
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = [
    "AGENTS",
    "CLAUDE_FAILURE_CUT",
    "CLAUDE_FAILURE_KEEP",
    "CLAUDE_INLINE",
    "CLAUDE_PREVIEW",
    "OPENCODE_CHARS",
    "OPENCODE_LINES",
    "agent_of",
    "head_chars",
    "shown",
]

AGENTS = ("claude", "codex", "copilot", "cursor", "gemini", "opencode")
# Claude Code's Bash tool (agentout.deliver.limits holds the same for delivering)
CLAUDE_INLINE = 30_000
CLAUDE_PREVIEW = 2_000
CLAUDE_FAILURE_CUT = 10_000
CLAUDE_FAILURE_KEEP = 5_000
OPENCODE_LINES = 2_000
OPENCODE_CHARS = 50_000
# Where Claude Code keeps an output it does not show inline: a path of the usual length
# (a project's folder slug, the session's id, the call's id).
_CLAUDE_KEPT = (
    "/home/user/.claude/projects/-home-user-src-project/"
    "0b3c9f6e-8d2a-4f1e-9c7b-5a6d4e3f2a1b/tool-results/toolu_01AbCdEfGhIjKlMnOpQrStUv.txt"
)
# Set by each agent's client in the shell it runs commands in (Claude Code: CLAUDECODE=1
# and AI_AGENT=claude-code_...; Gemini CLI: GEMINI_CLI=1; Codex: CODEX_SANDBOX=...): the
# variables the pytest plugin reads too (agentout.sources.testing.settings.AGENT_ENV_VARS).
_ENVIRONMENT = (
    ("CLAUDECODE", "claude"),
    ("GEMINI_CLI", "gemini"),
    ("CODEX_SANDBOX", "codex"),
    ("CURSOR_AGENT", "cursor"),
)
_AI_AGENT = (("claude-code", "claude"), ("gemini", "gemini"), ("codex", "codex"),
             ("cursor", "cursor"), ("opencode", "opencode"), ("copilot", "copilot"))  # fmt: skip
_OFF = ("", "0", "false", "no")


def agent_of(environ: Mapping[str, str] | None = None) -> str:
    """The agent whose client runs this process's commands ("" for none known)."""
    env = os.environ if environ is None else environ
    for name, agent in _ENVIRONMENT:
        if env.get(name, "").strip().lower() not in _OFF:
            return agent
    said = env.get("AI_AGENT", "").strip().lower()
    for prefix, agent in _AI_AGENT:
        if said.startswith(prefix):
            return agent
    return ""


def head_chars(limit: int | None = None) -> int:
    """How much of an output's start ``shown`` needs (with its size) under ``limit``."""
    return max(limit or CLAUDE_INLINE, OPENCODE_CHARS) + 1


def shown(
    head: str, chars: int, agent: str, exit_status: int | None = 0, limit: int | None = None
) -> str | None:
    """What ``agent``'s client shows the model of an output of ``chars`` characters that
    starts with ``head`` (at least its first ``head_chars(limit)``, or all of it), from a command
    that exited with ``exit_status``; None when that client's rules are not known here
    (the whole output is then the baseline). ``limit``: Claude Code's inline limit, when
    set otherwise than its default."""
    if agent == "claude":
        return _claude(head, chars, exit_status, limit or CLAUDE_INLINE)
    if agent == "opencode":
        kept = head[:OPENCODE_CHARS]
        lines = kept.split("\n")
        return "\n".join(lines[:OPENCODE_LINES])
    return None


def _claude(head: str, chars: int, exit_status: int | None, limit: int) -> str:
    if exit_status not in (None, 0):
        window = head[:limit]
        if len(window) > CLAUDE_FAILURE_CUT:
            cut = len(window) - 2 * CLAUDE_FAILURE_KEEP
            window = (
                f"{window[:CLAUDE_FAILURE_KEEP]}\n\n... [{cut} characters truncated] ...\n\n"
                f"{window[-CLAUDE_FAILURE_KEEP:]}"
            )
        return f"Exit code {exit_status}\n{window}"
    if chars <= limit:
        return head[:chars].lstrip("\n").rstrip()
    return (
        f"<persisted-output>Output too large ({_size(chars)}). Full output saved to: "
        f"{_CLAUDE_KEPT}\n\nPreview (first 2KB):\n{head[:CLAUDE_PREVIEW]}</persisted-output>"
    )


def _size(chars: int) -> str:
    """The size as Claude Code writes it: ``812B``, ``40.1KB``, ``1.4MB``."""
    if chars < 1024:
        return f"{chars}B"
    if chars < 1024 * 1024:
        return f"{chars / 1024:.1f}KB"
    return f"{chars / (1024 * 1024):.1f}MB"
