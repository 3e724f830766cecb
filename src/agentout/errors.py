"""Errors a user can act on. The CLI prints them as ``agentout: MESSAGE`` and exits 2."""

from __future__ import annotations

__all__ = ["AgentoutError", "InputError", "SpillError", "install_hint"]


class AgentoutError(Exception):
    """Base of every error agentout raises on purpose (bad input, bad settings)."""


class InputError(AgentoutError):
    """Bad input, located as precisely as known: ``FILE:LINE:COL: message``."""

    def __init__(
        self,
        message: str,
        path: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        self.message, self.path, self.line, self.column = message, path, line, column
        where = [str(p) for p in (path, line, column) if p is not None]
        super().__init__(":".join(where) + ": " + message if where else message)


class SpillError(AgentoutError):
    """A private directory or the store is unsafe, or a reference is not a file agentout
    spilled there."""


def install_hint(extra: str) -> str:
    """How to add one of agentout's extras: agentout is installed from its own folder (a
    clone, with uv tool or pipx), not from a package index."""
    return (
        f"in agentout's folder, uv tool install --reinstall '.[{extra}]' "
        f"(or pipx install --force '.[{extra}]')"
    )
