"""Running a child process for a tool call: no stdin, a deadline, the whole group killed.

A stdio MCP server's stdin is the protocol channel, so a child must never inherit it
(``agentout run`` lets its command read the terminal; this never does). The child gets
its own session, so a timeout ends it and everything it started; output is read merged
(stdout then stderr as they come) and handed on in chunks as it arrives.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping, Sequence

from agentout.sources.command import CommandOutcome

__all__ = ["run_bounded"]

_GRACE_SECONDS = 2.0  # between SIGTERM and SIGKILL on a timeout


def _end_group(process: subprocess.Popen[bytes], timed_out: threading.Event) -> None:
    timed_out.set()
    for sig, wait in ((signal.SIGTERM, _GRACE_SECONDS), (signal.SIGKILL, None)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, sig)
        if wait is None:
            return
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(wait)
            return


def run_bounded(
    argv: Sequence[str],
    on_output: Callable[[bytes], None],
    *,
    cwd: str | os.PathLike[str],
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> CommandOutcome:
    """Run ``argv`` (no shell) in ``cwd``; ended after ``timeout`` seconds if still running."""
    args = tuple(argv)
    start = time.monotonic()
    try:
        process = subprocess.Popen(
            args,
            cwd=cwd,
            env=None if env is None else dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except FileNotFoundError:
        return CommandOutcome(args, 127, 0.0, error=f"{args[0]}: command not found")
    except PermissionError:
        return CommandOutcome(args, 126, 0.0, error=f"{args[0]}: permission denied")
    except OSError as exc:
        return CommandOutcome(args, 126, 0.0, error=f"{args[0]}: {exc.strerror or exc}")
    timed_out = threading.Event()
    timer = threading.Timer(timeout, _end_group, (process, timed_out))
    timer.daemon = True
    timer.start()
    try:
        assert process.stdout is not None
        with process.stdout:
            fd = process.stdout.fileno()
            while chunk := os.read(fd, 1 << 16):
                on_output(chunk)
        status = process.wait()
    except BaseException:
        _end_group(process, timed_out)  # never leave a child running behind a failed call
        raise
    finally:
        timer.cancel()
    duration = time.monotonic() - start
    error = f"timed out after {timeout:g}s; stopped" if timed_out.is_set() else None
    if status < 0:
        return CommandOutcome(args, 128 - status, duration, signal=-status, error=error)
    return CommandOutcome(args, status, duration, error=error)
