"""Output given whole, as printed: its lines as a terminal leaves them, and the closing
line when there is anything to say. Kept apart from ``agentout.deliver.text`` so that
what gives small output whole (a task runner's line shell, for each recipe line) imports
nothing else.
"""

from __future__ import annotations

from agentout.read.visible import own_line, terminal_text, visible

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

__all__ = ["lines_of", "whole_text"]


def lines_of(data: bytes, own: str | None = None) -> list[str]:
    """The output's lines as a terminal leaves them; one that begins as agentout's own
    lines do gets a backslash first, unless it begins with ``own`` (taken off): the mark
    of agentout's own lines in a task runner's output."""
    text = data.decode("utf-8", errors="replace")
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    if own:
        return [
            terminal_text(line[len(own) :])
            if line.startswith(own)
            else own_line(terminal_text(line))
            for line in parts
        ]
    return [own_line(terminal_text(line)) for line in parts]


def whole_text(lines: Sequence[str], header: Mapping[str, Any], *, ended: bool = True) -> str:
    """The lines as printed, then ``[agentout: ...]`` naming the signal, error, secrets,
    warning and stored reference when there are any (and the exit status beside them). The
    exit status alone adds nothing: the agent's client says it (``Exit code N``). Before
    it, a line saying that reading stopped while the output was held open, if it was.
    ``ended``: the output's last line ended with a newline (else it is printed without
    one, as it was, unless a line of agentout's follows it)."""
    text = "".join(line + "\n" for line in lines)
    if header.get("held_open"):
        from agentout.formats.raw import held_open_marker

        text += held_open_marker(visible(str(header["held_open"]))) + "\n"
    status = header.get("exit", 0)
    extra = [f"exit={status}"] if status else []
    for key in ("signal", "error", "held_open", "secrets", "warning"):
        if header.get(key):
            extra.append(f"{key}={visible(str(header[key]))}")
    ref = header.get("ref")
    if extra == [f"exit={status}"]:  # the status alone: the client says it
        extra = []
    if not ended and not extra and not ref:
        return text[:-1] if text else text
    if ref:
        fields = f"agentout: {' '.join(extra)} · " if extra else ""
        return text + f"[{fields}agentout show {ref}]\n"
    return text + (f"[agentout: {' '.join(extra)}]\n" if extra else "")
