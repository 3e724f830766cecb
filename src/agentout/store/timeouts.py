"""How long agentout waits on an object store: every call has a deadline.

A store that refuses a connection fails at once; one that accepts and never answers, or
answers a byte a second, would hold a command for as long as the peer likes. So every
call to an object store (a ranged read, a size, a list, a delete, each part of an
upload) is bounded three ways, each set by an environment variable (seconds):

- ``AGENTOUT_STORE_CONNECT_TIMEOUT`` (5): to open a connection (S3).
- ``AGENTOUT_STORE_READ_TIMEOUT`` (10): the longest silence while waiting for bytes (S3).
- ``AGENTOUT_STORE_DEADLINE`` (20): the whole call, retries included, on every backend:
  past it the call is cancelled and the store counts as unreachable for the rest of the
  command (one line on stderr; the local store serves instead).
- ``AGENTOUT_STORE_GRACE`` (5): after ``agentout run`` has printed its answer, it waits
  for its upload to complete while the store takes it, and stops waiting once the store
  has taken nothing for this long: the upload goes on in the background, bounded by the
  deadline of each of its calls, and the output is kept locally.

A value that is not a positive number is refused with one line naming the variable.
"""

from __future__ import annotations

import os

from agentout.errors import AgentoutError
from agentout.frozen import Frozen

__all__ = ["ENV_CONNECT", "ENV_DEADLINE", "ENV_GRACE", "ENV_READ", "Timeouts"]

ENV_CONNECT = "AGENTOUT_STORE_CONNECT_TIMEOUT"
ENV_READ = "AGENTOUT_STORE_READ_TIMEOUT"
ENV_DEADLINE = "AGENTOUT_STORE_DEADLINE"
ENV_GRACE = "AGENTOUT_STORE_GRACE"
_DEFAULTS = {ENV_CONNECT: 5.0, ENV_READ: 10.0, ENV_DEADLINE: 20.0, ENV_GRACE: 5.0}
_MOST = 86400.0  # a day: more is a typo, not a timeout


class Timeouts(Frozen):
    """The store's timeouts, in seconds (see the module docstring)."""

    connect: float
    read: float
    deadline: float
    grace: float

    def __init__(self, connect: float, read: float, deadline: float, grace: float) -> None:
        self._set(connect=connect, read=read, deadline=deadline, grace=grace)

    @classmethod
    def from_env(cls) -> Timeouts:
        """The environment's values, else the defaults; ``AgentoutError`` naming a bad one."""
        values = {name: _seconds(name) for name in _DEFAULTS}
        return cls(values[ENV_CONNECT], values[ENV_READ], values[ENV_DEADLINE], values[ENV_GRACE])

    def describe(self, which: str) -> str:
        """``20 s (AGENTOUT_STORE_DEADLINE)``: a limit as a message names it."""
        seconds, name = {
            "connect": (self.connect, ENV_CONNECT),
            "read": (self.read, ENV_READ),
            "deadline": (self.deadline, ENV_DEADLINE),
            "grace": (self.grace, ENV_GRACE),
        }[which]
        return f"{seconds:g} s ({name})"


def _seconds(name: str) -> float:
    text = os.environ.get(name, "").strip()
    if not text:
        return _DEFAULTS[name]
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= _MOST:
        raise AgentoutError(f"{name}={text!r}: expected seconds, a number above 0 (like 5 or 0.5)")
    return value
