"""What the ledger says about itself: one line on stderr, or in the recorder's log.

A command that records or reads the ledger says what went wrong in one line on stderr
(``agentout: ledger: …``): a busy database whose rows wait for the next count, a corrupt
one moved aside, pending lines that were not deliveries. The detached recorder has no
one to tell: its stderr is ``ledger-recorder.log`` beside the database (0600), each line
with the UTC time, and ``agentout gain`` mentions what it holds, once (the log then
moves to ``ledger-recorder.log.seen``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import time

TYPE_CHECKING = False  # pathlib is imported where a path is made: `agentout run` appends a line
if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["LOG_NAME", "in_recorder", "news", "note", "open_log"]

LOG_NAME = "ledger-recorder.log"
_SEEN = ".seen"
_recorder = False  # this process is the detached recorder: lines are stamped


def in_recorder() -> None:
    """Say that this process is the detached recorder (its stderr is the log)."""
    global _recorder
    _recorder = True


def note(message: str) -> None:
    """One line about the ledger: on stderr, or stamped in the recorder's log."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ ", time.gmtime()) if _recorder else ""
    with contextlib.suppress(OSError, ValueError):
        sys.stderr.write(f"{stamp}agentout: ledger: {message}\n")
        sys.stderr.flush()


def open_log(database: Path) -> int:
    """The recorder's log, opened to append (created 0600): its stderr."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    return os.open(database.with_name(LOG_NAME), flags, 0o600)


def news(database: Path) -> str | None:
    """One line saying what the recorder logged since this was last asked, or None; the
    log is then set aside, so the same news is told once."""
    log = database.with_name(LOG_NAME)
    try:
        lines = [ln for ln in log.read_text("utf-8", "replace").splitlines() if ln.strip()]
    except OSError:
        return None
    if not lines:
        return None
    seen = log.with_name(LOG_NAME + _SEEN)
    with contextlib.suppress(OSError):
        os.replace(log, seen)
    last = lines[-1].split(" ", 1)[-1].removeprefix("agentout: ledger: ")
    many = f"{len(lines)} lines" if len(lines) > 1 else "a line"
    return (
        f"the background recorder wrote {many} to {seen} since this was last shown; "
        f"the last: {last}"
    )
