"""One delivery in the ledger: the row every part of the ledger reads and writes."""

from __future__ import annotations

from agentout.frozen import Frozen

__all__ = ["COLUMNS", "LATEST", "Row", "checked"]

COLUMNS = (
    "time", "project", "tool", "command", "raw_tokens", "delivered_tokens", "facts_kept",
    "facts_total", "duration", "exit_status", "secrets", "raw_exact", "agent", "shown_tokens",
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
    agent: str  # whose client the output was for ("" none known: ledger.clients.agent_of)
    shown_tokens: int | None  # what that client would have shown of the raw output

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
        agent: str = "",
        shown_tokens: int | None = None,
    ) -> None:
        self._set(
            time=time, project=project, tool=tool, command=command, raw_tokens=raw_tokens,
            delivered_tokens=delivered_tokens, facts_kept=facts_kept, facts_total=facts_total,
            duration=duration, exit_status=exit_status, secrets=secrets, raw_exact=raw_exact,
            agent=agent, shown_tokens=shown_tokens,
        )  # fmt: skip

    @property
    def saved(self) -> int:
        """Tokens the agent did not pay for against the whole raw output (0 when the raw
        count is unknown)."""
        return 0 if self.raw_tokens is None else self.raw_tokens - self.delivered_tokens

    @property
    def baseline(self) -> int | None:
        """Tokens the model would have read without agentout: what the agent's client
        shows of the raw output (``ledger.clients``), else the whole raw output (a client
        whose limit is not known, a row of an earlier version); None when not known."""
        return self.raw_tokens if self.shown_tokens is None else self.shown_tokens

    @property
    def shown_saved(self) -> int:
        """Tokens saved against what the client would have shown (0 when not known; below
        0 when agentout gave more than the client's preview or cut)."""
        baseline = self.baseline
        return 0 if baseline is None else baseline - self.delivered_tokens


# -- what a row may hold: checked before it is stored, and when it is read back ------------

LATEST = 7258118400.0  # 2200-01-01: a later time is a mistake (1e300), not a delivery
_MOST = 1 << 53  # the largest count a float holds exactly: more is not a token count
_TEXT_CHARS = {"tool": 64, "command": 200, "project": 4096, "agent": 32}


def checked(values: dict[str, object]) -> Row:
    """The ``Row`` of ``values`` (a value per name of ``COLUMNS``), or ``ValueError``
    naming the first field that a row cannot hold: a text that is not text, a count that
    is not a whole number from 0, a time that is not a number of seconds between 1970
    and 2200, a status that is not a whole number. A row of an earlier version has no
    ``agent`` (""), nor ``shown_tokens`` (None)."""
    fields = {name: values.get(name) for name in COLUMNS}
    if fields["agent"] is None:
        fields["agent"] = ""
    for name, limit in _TEXT_CHARS.items():
        text = fields[name]
        if not isinstance(text, str) or (name == "tool" and not text):
            raise ValueError(f"{name}: expected text, got {_shown(text)}")
        fields[name] = text[:limit]
    fields["time"] = _seconds("time", fields["time"], LATEST, optional=False)
    fields["duration"] = _seconds("duration", fields["duration"], LATEST, optional=True)
    counts = (
        "raw_tokens",
        "facts_kept",
        "facts_total",
        "delivered_tokens",
        "secrets",
        "shown_tokens",
    )
    for name in counts:
        optional = name not in ("delivered_tokens", "secrets")
        fields[name] = _count(name, fields[name], optional=optional)
    status = fields["exit_status"]
    if status is not None and (type(status) is not int or abs(status) > 1 << 31):
        raise ValueError(f"exit_status: expected a whole number, got {_shown(status)}")
    exact = fields["raw_exact"]
    if exact not in (True, False, 0, 1) or isinstance(exact, float):
        raise ValueError(f"raw_exact: expected true or false, got {_shown(exact)}")
    fields["raw_exact"] = bool(exact)
    return Row(**fields)  # type: ignore[arg-type]


def _seconds(name: str, value: object, most: float, *, optional: bool) -> float | None:
    if value is None and optional:
        return None
    if type(value) not in (int, float) or not 0 <= value <= most:  # type: ignore[operator]
        raise ValueError(f"{name}: expected seconds from 0 to {most:.0f}, got {_shown(value)}")
    return float(value)  # type: ignore[arg-type]


def _count(name: str, value: object, *, optional: bool) -> int | None:
    if value is None and optional:
        return None
    if type(value) is not int or not 0 <= value <= _MOST:
        raise ValueError(f"{name}: expected a whole number from 0, got {_shown(value)}")
    return value


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
