"""One delivery in the ledger: the row every part of the ledger reads and writes."""

from __future__ import annotations

from agentout.frozen import Frozen

__all__ = ["COLUMNS", "Row"]

COLUMNS = (
    "time", "project", "tool", "command", "raw_tokens", "delivered_tokens", "facts_kept",
    "facts_total", "duration", "exit_status", "secrets", "raw_exact",
)  # fmt: skip


class Row(Frozen):
    """One delivery in the ledger: a row of its table."""

    time: float
    project: str
    tool: str
    command: str
    raw_tokens: int | None
    delivered_tokens: int
    facts_kept: int | None
    facts_total: int | None
    duration: float | None
    exit_status: int | None
    secrets: int
    raw_exact: bool

    def __init__(
        self,
        time: float,
        project: str,
        tool: str,
        command: str,
        raw_tokens: int | None,
        delivered_tokens: int,
        facts_kept: int | None,
        facts_total: int | None,
        duration: float | None,
        exit_status: int | None,
        secrets: int,
        raw_exact: bool,
    ) -> None:
        self._set(
            time=time, project=project, tool=tool, command=command, raw_tokens=raw_tokens,
            delivered_tokens=delivered_tokens, facts_kept=facts_kept, facts_total=facts_total,
            duration=duration, exit_status=exit_status, secrets=secrets, raw_exact=raw_exact,
        )  # fmt: skip

    @property
    def saved(self) -> int:
        """Tokens the agent did not pay for (0 when the raw count is unknown)."""
        return 0 if self.raw_tokens is None else self.raw_tokens - self.delivered_tokens
