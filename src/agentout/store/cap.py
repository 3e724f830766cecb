"""How much of one output the store keeps: its cap, and the line that marks what it left out.

A command that never stops printing (``yes``, a log followed for ever, a loop gone wrong)
would otherwise fill the disk: ``agentout run -- yes`` wrote 1.7 GB in 5 s. Past the cap,
a stored output keeps its first part (the head, ``cap - tail``) and its last part (the
tail, ``tail_bytes(cap)``), each starting and ending at a line where it can; what lies
between is counted, not kept, and one line in the stored file says where and how much.
Its name says so too (``run_cut-HEX.log``), for ``agentout show`` to say it on every page.

The cap is ``$AGENTOUT_STORE_MAX_BYTES``, else ``max_bytes`` in the ``[store]`` table of
``config.toml``, else 256 MiB: far more than anyone pages through, far less than a disk.
A value is a whole number of bytes, or one with a unit (``512MiB``, ``2GiB``, ``64M``),
from 1 MiB; ``0`` (or ``none``) keeps every byte, as before there was a cap.
"""

from __future__ import annotations

import os

__all__ = [
    "CUT_KIND",
    "DEFAULT_CAP",
    "ENV_CAP",
    "MIN_CAP",
    "cut_marker",
    "is_cut",
    "parse_size",
    "passed_note",
    "size_text",
    "store_cap",
    "tail_bytes",
]

CUT_KIND = "_cut"  # ends the kind of a capped output's name (run_cut-HEX.log)
DEFAULT_CAP = 256 << 20
MIN_CAP = 1 << 20
ENV_CAP = "AGENTOUT_STORE_MAX_BYTES"
_TAIL_MAX = 8 << 20  # the tail is held in memory until the output ends
_UNITS = {
    "": 1,
    "b": 1,
    "k": 1 << 10,
    "kb": 1 << 10,
    "kib": 1 << 10,
    "m": 1 << 20,
    "mb": 1 << 20,
    "mib": 1 << 20,
    "g": 1 << 30,
    "gb": 1 << 30,
    "gib": 1 << 30,
}


def parse_size(value: object, where: str) -> int | None:
    """A cap as written (``268435456``, ``"256MiB"``, ``0``); None for no cap.
    ``ValueError`` naming ``where`` for anything else."""
    if isinstance(value, bool):
        raise ValueError(f"{where}: expected a size such as 256MiB, got {value!r}")
    if isinstance(value, int):
        number, unit = value, ""
    elif isinstance(value, str):
        text = value.strip().lower().replace(" ", "")
        if text in ("0", "none", "off"):
            return None
        digits = len(text) - len(text.lstrip("0123456789"))
        number_text, unit = text[:digits], text[digits:]
        if not number_text or unit not in _UNITS:
            raise ValueError(
                f"{where}: expected a size such as 256MiB or a number of bytes, got {value!r}"
            )
        number = int(number_text)
    else:
        raise ValueError(f"{where}: expected a size such as 256MiB, got {value!r}")
    size = number * _UNITS[unit]
    if size == 0:
        return None
    if size < MIN_CAP:
        raise ValueError(f"{where}: the store keeps at least 1MiB (0: no cap), got {value!r}")
    return size


def store_cap() -> tuple[int | None, str | None]:
    """(the cap in bytes, or None for none; a warning if the setting was bad and the
    default is used instead). Read when an output first reaches the store, so a small
    one never reads the config file."""
    configured = os.environ.get(ENV_CAP, "").strip()
    try:
        if configured:
            return parse_size(configured, ENV_CAP), None
        return _from_config(), None
    except ValueError as exc:
        return DEFAULT_CAP, f"{exc}; the store keeps {size_text(DEFAULT_CAP)} of an output"


def _from_config() -> int | None:
    from agentout.errors import AgentoutError
    from agentout.read.config import config_path, load

    path = config_path()
    try:
        table = load(path).get("store", {})
    except AgentoutError as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(table, dict) or "max_bytes" not in table:
        return DEFAULT_CAP
    return parse_size(table["max_bytes"], f"{path}: store.max_bytes")


def tail_bytes(cap: int) -> int:
    """How much of a capped output's end is kept: a quarter of the cap, at most 8 MiB."""
    return min(cap // 4, _TAIL_MAX)


def size_text(size: int) -> str:
    """``256 MiB``, ``1.5 GiB``, ``300 bytes``: for what a person reads."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.4g} {unit}"
    return f"{size} bytes"


def is_cut(name: str) -> bool:
    """Whether the stored file ``name`` is a capped output (its kind says so)."""
    return name.split("-", 1)[0].endswith(CUT_KIND)


def cut_marker(dropped: int, lines: int, cap: int) -> bytes:
    """The line a capped output has in the store where its middle was left out."""
    noun = "line" if lines == 1 else "lines"
    return (
        f"[agentout: {dropped} bytes ({lines} {noun}) of the output not kept here: the store "
        f"keeps {size_text(cap)} of an output, its start and its end ({ENV_CAP})]\n"
    ).encode()


def passed_note(cap: int) -> str:
    """The line said at once when an output passes the cap while its command still
    prints: what is delivered at its end will be a cut of it."""
    return (
        f"[agentout: past the store's cap ({size_text(cap)}) and still printing; "
        "kept: its start and its end]\n"
    )
