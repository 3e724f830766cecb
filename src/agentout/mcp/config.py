"""What ``agentout serve`` was started with, shared by every tool of one server.

``store`` is the server's own part of the spill store: ``namespace_for`` names it after
the server's resolved roots, so two servers started over the same roots (replicas behind
a load balancer, or the same client restarted) share it, and a server over other roots,
or a command run at the terminal, never sees what it holds.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from agentout.mcp.calls import Calls
from agentout.mcp.fit import DEFAULT_MAX_TOKENS, Limits
from agentout.mcp.guard import Allowlist, Roots
from agentout.mcp.tokenizers import CallTokenizers
from agentout.store.spill import SpillStore
from agentout.tokens import Tokenizer, get_tokenizer

__all__ = ["ServerConfig", "namespace_for"]


def namespace_for(roots: Roots) -> str:
    """A stable name for the trust boundary of a server over ``roots``: the same set of
    resolved directories, the same name; any other set, another name."""
    joined = "\0".join(sorted(str(root) for root in roots.dirs))
    return "mcp-" + hashlib.sha256(joined.encode("utf-8", "surrogateescape")).hexdigest()[:16]


@dataclass(frozen=True)
class ServerConfig:
    """Roots, allowlist, the server's spill store (already its namespace), budgets."""

    roots: Roots
    allow: Allowlist
    store: SpillStore
    max_tokens: int = DEFAULT_MAX_TOKENS
    tokenizer: Tokenizer | None = None
    calls: Calls = field(default_factory=Calls, compare=False)
    tokenizers: CallTokenizers = field(init=False, compare=False)

    def __post_init__(self) -> None:
        resolved = CallTokenizers(self.roots, get_tokenizer(self.tokenizer))
        object.__setattr__(self, "tokenizers", resolved)

    def limits(self, max_tokens: int | None, inline_threshold: int | None = None) -> Limits:
        return Limits.of(
            max_tokens,
            inline_threshold,
            self.tokenizer,
            self.store,
            default_tokens=self.max_tokens,
        )
