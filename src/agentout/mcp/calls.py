"""Tool calls run in worker threads, each with a flag that stops it.

A tool's work (reading files, counting, running a command) runs in a worker thread, so
the server's event loop keeps answering (``ping``, other calls) while it runs. Each call
gets a ``threading.Event``: it is set when the client cancels the call
(``notifications/cancelled``) or the server is told to stop, and the commands a call
started watch it (``agentout.process.run(cancel=...)``) and end their process group.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["Calls"]

T = TypeVar("T")


class Calls:
    """The calls in flight: started with ``run``, all stopped at once with ``stop``."""

    def __init__(self) -> None:
        self._flags: set[threading.Event] = set()
        self._lock = threading.Lock()
        self.stopping = threading.Event()

    async def run(self, work: Callable[[threading.Event], T]) -> T:
        """``work(cancel)`` in a worker thread. Cancelling the awaiting task sets ``cancel``
        and returns at once; the thread then ends what it started and finishes alone."""
        import anyio

        cancel = threading.Event()
        with self._lock:
            self._flags.add(cancel)
            if self.stopping.is_set():
                cancel.set()
        try:
            return await anyio.to_thread.run_sync(work, cancel, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            cancel.set()
            raise
        finally:
            with self._lock:
                self._flags.discard(cancel)

    def stop(self) -> None:
        """Set every running call's flag, and those of calls started from now on."""
        with self._lock:
            self.stopping.set()
            for flag in self._flags:
                flag.set()

    @property
    def running(self) -> int:
        with self._lock:
            return len(self._flags)
