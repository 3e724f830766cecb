"""How ``agentout.process.run`` reads a child's merged output: in large pieces as it
comes, the clock, the cancel flag and the heartbeat looked at between reads, and, once the
child has exited, every byte still waiting in the pipe (however slow the reader), but
nothing a process the child left running still writes into it. Built-in modules only."""

from __future__ import annotations

import os
import select
import sys
import time

TYPE_CHECKING = False  # typing is not imported at run time
if TYPE_CHECKING:
    import signal
    import threading
    from collections.abc import Callable
    from typing import Protocol

    class Child(Protocol):
        """What the reader needs of ``agentout.process.Child`` (not imported: it imports
        this module)."""

        started: float
        exited: float | None

        def end(self, sig: int, grace: float) -> None: ...
else:
    import _signal as signal

__all__ = ["READ_BYTES", "TICK", "Watch", "drain", "pipe_or_socket"]

READ_BYTES = 1 << 20
PIPE_BYTES = 1 << 20
TICK = 0.25  # how often a quiet read loop looks at the clock, the cancel flag and the child


class Watch:
    """The clock, the cancel flag and the heartbeat, looked at between reads."""

    def __init__(
        self,
        child: Child,
        timeout: float | None,
        cancel: threading.Event | None,
        grace: float,
        on_tick: Callable[[float], None] | None,
    ) -> None:
        self.child, self.cancel, self.grace, self.on_tick = child, cancel, grace, on_tick
        self.deadline = None if timeout is None else child.started + timeout
        self.stopped: str | None = None  # "timeout" or "cancel"
        self.last_tick = child.started

    def check(self) -> None:
        now = time.monotonic()
        if self.stopped is None:
            if self.deadline is not None and now >= self.deadline:
                self.stopped = "timeout"
            elif self.cancel is not None and self.cancel.is_set():
                self.stopped = "cancel"
            if self.stopped is not None:
                self.child.end(signal.SIGTERM, self.grace)
        if self.on_tick is not None and now - self.last_tick >= 1.0:
            self.last_tick = now
            self.on_tick(now - self.child.started)


def drain(
    fd: int,
    child: Child,
    on_output: Callable[[bytes], None],
    watch: Watch,
    linger: float,
    downstream: int | None = None,
) -> bool:
    """Read the pipe until it closes; True when it was still held open ``linger`` seconds
    after the child exited (by a process the child started) and reading stopped, once
    every byte waiting in it was read (see ``_waiting``)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    if downstream is not None:
        poller.register(downstream, 0)  # its POLLERR or POLLHUP: the reader went away
    while True:
        watch.check()
        exited = child.exited
        if exited is not None and time.monotonic() - exited >= linger:
            return _waiting(fd, on_output)
        for ready, _events in poller.poll(TICK * 1000):
            if ready == downstream:  # as the command's next write into a raw pipe would
                poller.unregister(downstream)
                child.end(signal.SIGPIPE, watch.grace)
                continue
            chunk = os.read(fd, READ_BYTES)
            if not chunk:
                return False
            on_output(chunk)


def _waiting(fd: int, on_output: Callable[[bytes], None]) -> bool:
    """The child has exited, so all it wrote is in the pipe by now: read what waits there
    (however long ``on_output`` takes with it), and no more while a process still holds
    the pipe open, since that one could write for ever. Whether one still holds it."""
    left = _pipe_holds(fd)
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    while True:
        found = poller.poll(0)
        if not found:
            return True  # held open, and nothing waits
        hung_up = found[0][1] & (select.POLLHUP | select.POLLERR)
        if left <= 0 and not hung_up:
            return True  # what waits now was written since, by whoever holds the pipe
        chunk = os.read(fd, READ_BYTES if left <= 0 else min(left, READ_BYTES))
        if not chunk:
            return False  # closed: every writer is gone, and all it wrote was read
        left -= len(chunk)
        on_output(chunk)


def _pipe_holds(fd: int) -> int:
    """The bytes waiting in the pipe (``FIONREAD``); where that cannot be asked, what
    the pipe can hold at most, read while there is something to read."""
    import fcntl

    try:
        import termios

        found = fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0")
        return int.from_bytes(found, sys.byteorder)
    except (ImportError, AttributeError, OSError):
        return PIPE_BYTES


def pipe_or_socket(fd: int | None) -> int | None:
    """``fd`` if it is a pipe or a socket (whose reader can go away), else None."""
    if fd is None:
        return None
    try:
        kind = os.fstat(fd).st_mode & 0o170000  # stat.S_IFMT, without importing stat
    except OSError:
        return None
    return fd if kind in (0o010000, 0o140000) else None  # S_IFIFO, S_IFSOCK
