"""Children agentout starts: each in its own process group, which agentout owns.

One module for ``agentout run``, ``run --timeout``, ``agentout test -- CMD`` and the MCP
tools. A child runs in a new process group, so everything it starts can be ended
together: a SIGINT, SIGTERM or SIGHUP sent to agentout goes to the whole group, a second
one (or a grace period) ends the group with SIGKILL. A child killed by a signal is
reported as a shell reports it (128+N) even when agentout was started with SIGCHLD
ignored (``keep_child_status``: the kernel would otherwise reap the child, and its status
read as 0). A timeout or a cancel ends the
group the same way. ``end_all`` ends every group still running, for a server that is
told to stop.

Output (stdout and stderr merged, in order, through one pipe) is read in large pieces
and handed to ``on_output`` as it comes; the pipe is made as large as the system allows
so the child is not held up between reads. The child's own wall time (start to exit) is
measured apart from whatever the reader does. Every byte the child wrote is read,
however slowly ``on_output`` takes them: once it has exited, what waits in the pipe is
all there, and it is read to the last byte. Only a pipe still held open by a process
that outlived the child (a daemon it started) is given up, ``linger`` seconds after the
child exited and once what was waiting is read; ``CommandOutcome.held_open`` then says
so, for the delivery to say it.

``downstream`` is agentout's own stdout when it is a pipe or a socket: should its reader
go away while the command runs (``agentout run -- yes | true``), the command's group is
sent SIGPIPE, as a raw pipeline's writer would get it at its next write (SIGKILL after
the grace period if it ignores it).

Every command an agent runs through ``agentout run`` pays this module's import, so it
imports built-in modules only: ``_signal`` and ``_thread``, the cores of ``signal`` and
``threading`` without their enum and Python layers, and ``subprocess`` only for a child
that ``posix_spawnp`` cannot start (another folder, another stdin, the terminal handed
over). ``import subprocess`` alone (with ``locale``, ``re`` and ``enum``) costs more
than the rest of a small command's path.
"""

from __future__ import annotations

import _thread
import os
import sys
import time

from agentout.frozen import Frozen
from agentout.process._read import PIPE_BYTES, TICK, Watch, drain, pipe_or_socket

TYPE_CHECKING = False  # typing is not imported at run time
if TYPE_CHECKING:
    import signal
    import subprocess
    import threading
    from collections.abc import Callable, Mapping, Sequence
    from types import FrameType
    from typing import IO, Any
else:
    import _signal as signal

__all__ = [
    "GRACE_SECONDS",
    "TIMEOUT_STATUS",
    "Child",
    "CommandOutcome",
    "copied_to_capture",
    "end_all",
    "in_client_capture",
    "keep_child_status",
    "pipe_or_socket",
    "python_module",
    "run",
    "shell_argv",
]

GRACE_SECONDS = 3.0  # between the first signal to a group and SIGKILL
TIMEOUT_STATUS = 124  # as coreutils' timeout
LINGER_SECONDS = 2.0
_F_SETPIPE_SZ = 1031  # Linux; elsewhere the pipe keeps its size
_FORWARDED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
# Set by ``in_client_capture``: the descriptor of an agent client's own capture file that
# every command's output is copied to as it arrives (its children kept in this group),
# and how many bytes were copied there.
_capture: list[int] = []


class CommandOutcome(Frozen):
    """How a command ended: the status a shell would report, and why if it did not run.

    ``duration`` is the child's own wall time, from its start to its exit.
    """

    argv: tuple[str, ...]
    exit_status: int
    duration: float
    signal: int | None
    error: str | None
    timed_out: bool
    cancelled: bool
    held_open: float | None

    def __init__(
        self,
        argv: tuple[str, ...],
        exit_status: int,
        duration: float,
        signal: int | None = None,
        error: str | None = None,
        timed_out: bool = False,
        cancelled: bool = False,
        held_open: float | None = None,
    ) -> None:
        """``held_open``: the seconds after the command's exit at which agentout stopped
        reading its output, which a process it started still held open (None: read to
        its end)."""
        self._set(
            argv=argv, exit_status=exit_status, duration=duration, signal=signal,
            error=error, timed_out=timed_out, cancelled=cancelled, held_open=held_open,
        )  # fmt: skip


def shell_argv(command: str) -> tuple[str, ...]:
    """``command`` run whole by bash, as Claude Code runs its Bash tool's commands (never
    ``$SHELL`` or ``/bin/sh``: ``|&``, ``[[``, ``pipefail`` mean nothing to dash, and a
    user's fish or tcsh reads another language); ``/bin/sh`` only where there is no bash."""
    return (_bash(), "-c", command)


def _bash() -> str:
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        candidate = os.path.join(directory, "bash")
        if os.path.isabs(candidate) and os.access(candidate, os.X_OK):
            return candidate
    for candidate in ("/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash"):
        if os.access(candidate, os.X_OK):
            return candidate
    return "/bin/sh"


def python_module(module: str) -> list[str]:
    """The words that run ``python -m MODULE`` in this Python with nothing of the current
    folder importable: ``-P`` (Python 3.11+), else a ``-c`` that takes the folder off
    ``sys.path`` before the first import. A bare ``python -m agentout...`` started in a
    repository holding an ``agentout/`` folder would run that folder's code. Unlike ``-I``,
    the user's site-packages and ``PYTHONPATH`` (where agentout may be installed) stay."""
    if sys.version_info >= (3, 11):
        return [sys.executable, "-P", "-m", module]
    code = (
        "import sys,runpy;del sys.path[0];"
        f"runpy.run_module({module!r},run_name='__main__',alter_sys=True)"
    )
    return [sys.executable, "-c", code]


# -- the groups agentout owns --------------------------------------------------------------

_live: set[Child] = set()
_live_lock = _thread.allocate_lock()


class Child:
    """A started command: its own process group, its merged output as a pipe (``fd``)."""

    def __init__(self, pid: int, fd: int, argv: tuple[str, ...], popen: Any = None) -> None:
        self.pid = pid
        self.fd = fd
        self.argv = argv
        # the group's leader is the child itself; in a client's capture the child stays
        # in agentout's group (the client's), and only the child itself is signalled
        self.pgid = pid if not _capture else -pid
        self.started = time.monotonic()
        self.exited: float | None = None
        self.status: int | None = None
        self._popen = popen  # when subprocess started it: told the status once reaped
        self._ending = False  # a SIGKILL is pending
        self._lock = _thread.allocate_lock()
        self._reaped = _thread.allocate_lock()
        self._reaped.acquire()  # released once the child has exited
        with _live_lock:
            _live.add(self)

    def signal_group(self, sig: int) -> bool:
        """Send ``sig`` to every process of the group; False once the group is gone."""
        try:
            if self.pgid > 0:
                os.killpg(self.pgid, sig)
            else:
                os.kill(self.pid, sig)
        except (ProcessLookupError, PermissionError):
            return False
        return True

    def alive(self) -> bool:
        """Is any process of the group still there (zombies of the leader aside)?"""
        return self.status is None or self.signal_group(0)

    def end(self, sig: int = signal.SIGTERM, grace: float = GRACE_SECONDS) -> None:
        """Send ``sig`` to the group now and SIGKILL after ``grace`` seconds if it is still
        there; a second call while the first is pending kills the group at once."""
        with self._lock:
            if self._ending:
                self.signal_group(signal.SIGKILL)
                return
            self.signal_group(sig)
            self._ending = True
            _thread.start_new_thread(self._kill_after, (grace,))

    def _kill_after(self, grace: float) -> None:
        time.sleep(grace)
        if self._ending and self.alive():
            self.signal_group(signal.SIGKILL)

    def reap(self) -> int:
        """Wait for the child itself; record when it exited. Its status as ``Popen``
        gives it (-N when a signal ended it). Called once, by the reaper thread."""
        try:
            _, wait_status = os.waitpid(self.pid, 0)
            status = os.waitstatus_to_exitcode(wait_status)
        except ChildProcessError:  # reaped by the kernel (SIGCHLD ignored): as Popen says
            status = 0
        self.exited = time.monotonic()
        self.status = status
        if self._popen is not None:
            self._popen.returncode = status
        self._reaped.release()
        return status

    def reaped(self, timeout: float) -> bool:
        """Wait up to ``timeout`` seconds for the reaper; whether the child has exited."""
        if self._reaped.acquire(timeout=timeout):
            self._reaped.release()
            return True
        return False

    def release(self) -> None:
        """Forget the child: its group is no longer agentout's to end (except a pending kill)."""
        with _live_lock:
            _live.discard(self)
        if self._ending and not self.alive():
            self._ending = False


def in_client_capture(fd: int) -> None:
    """From now on this process runs commands inside an agent client's own capture of
    their output (Claude Code's task file, ``fd``): each command stays in this process
    group, which the client signals and ends as its own; a signal to agentout is not sent
    on (the command has it already) and agentout reads on until the command ends; and the
    output is copied to ``fd`` as it arrives, so the file holds what the command printed
    whatever happens to agentout (``agentout.cli.run_capture`` replaces it at the end)."""
    _capture[:] = [fd, 0]


def copied_to_capture() -> int:
    """How many bytes of output went to the client's capture (``in_client_capture``), or
    -1 when a write there failed."""
    return _capture[1] if _capture else 0


def _copied(on_output: Callable[[bytes], None]) -> Callable[[bytes], None]:
    """``on_output``, each piece written to the client's capture first (as long as it
    takes it)."""

    def copy(chunk: bytes) -> None:
        if _capture[1] >= 0:
            try:
                view = memoryview(chunk)
                while view:
                    view = view[os.write(_capture[0], view) :]
                _capture[1] += len(chunk)
            except OSError:
                _capture[1] = -1
        on_output(chunk)

    return copy


def end_all(grace: float = GRACE_SECONDS) -> None:
    """End every group agentout started and still owns: SIGTERM, then SIGKILL after
    ``grace`` seconds for what is left. Returns when all are gone or killed."""
    with _live_lock:
        children = list(_live)
    for child in children:
        child.signal_group(signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(child.signal_group(0) for child in children):
        time.sleep(0.05)
    for child in children:
        child.signal_group(signal.SIGKILL)


def start(
    argv: Sequence[str],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stdin: int | IO[Any] | None = None,
) -> Child | CommandOutcome:
    """Start ``argv`` in a new process group, its stdout and stderr merged into one pipe;
    a ``CommandOutcome`` (127, 126) if it cannot start. ``stdin`` as for ``Popen``
    (None: inherited). When agentout holds the terminal, the group gets it, so Ctrl-C
    and reading the terminal behave as without agentout."""
    args = tuple(argv)
    if not args:
        raise ValueError("no command given; usage: agentout run -- CMD ARGS...")
    keep_child_status()
    terminal = _foreground_terminal() if stdin is None else None
    read, write = os.pipe()
    try:
        if cwd is None and stdin is None and terminal is None and min(read, write) > 2:
            pid, popen = _spawn(args, env, write), None
        else:
            popen = _popen(args, cwd, env, stdin, terminal, write)
            pid = popen.pid
    except FileNotFoundError:
        os.close(read)
        return CommandOutcome(args, 127, 0.0, error=f"{args[0]}: command not found")
    except PermissionError:
        os.close(read)
        return CommandOutcome(args, 126, 0.0, error=f"{args[0]}: permission denied")
    except OSError as exc:
        os.close(read)
        return CommandOutcome(args, 126, 0.0, error=f"{args[0]}: {exc.strerror or exc}")
    finally:
        os.close(write)
    try:
        import fcntl

        fcntl.fcntl(read, _F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass
    return Child(pid, read, args, popen)


# Signals Python itself ignores, which a command must start with as a shell gives them.
_DEFAULT_IN_CHILD = tuple(
    getattr(signal, name) for name in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, name)
)


def _spawn(args: tuple[str, ...], env: Mapping[str, str] | None, out: int) -> int:
    """``args`` started by ``posix_spawnp`` in a new group, stdout and stderr on ``out``;
    its pid. This is what ``agentout run`` takes: the start of every command an agent
    runs through it, without ``subprocess`` (whose import alone, with ``locale``, ``re``
    and ``enum``, costs more than the rest of a small command's path). As ``Popen`` with
    ``close_fds``, the child gets no other descriptor of this process."""
    actions: list[tuple[int, ...]] = [(os.POSIX_SPAWN_DUP2, out, 1), (os.POSIX_SPAWN_DUP2, out, 2)]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inherited_descriptors()]
    environ = os.environ if env is None else dict(env)
    if _capture:  # in the client's own group
        return os.posix_spawnp(
            args[0], args, environ, file_actions=actions, setsigdef=_DEFAULT_IN_CHILD
        )
    return os.posix_spawnp(
        args[0], args, environ, file_actions=actions, setpgroup=0, setsigdef=_DEFAULT_IN_CHILD
    )


def _inherited_descriptors() -> list[int]:
    """Descriptors above 2 that a child would inherit (this process's own are made
    non-inheritable by Python; these came from whoever started it)."""
    try:
        names = os.listdir("/proc/self/fd" if sys.platform == "linux" else "/dev/fd")
    except OSError:
        return []
    found = []
    for name in names:
        fd = int(name)
        if fd > 2:
            try:
                if os.get_inheritable(fd):
                    found.append(fd)
            except OSError:  # the listing's own descriptor, closed by now
                pass
    return sorted(found)


def _popen(
    args: tuple[str, ...],
    cwd: str | os.PathLike[str] | None,
    env: Mapping[str, str] | None,
    stdin: int | IO[Any] | None,
    terminal: int | None,
    out: int,
) -> subprocess.Popen[bytes]:
    """``args`` started by ``subprocess``: in another folder, with another stdin, or
    handed the terminal (what ``posix_spawnp`` cannot do)."""
    import subprocess

    return subprocess.Popen(
        args,
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=stdin,
        stdout=out,
        stderr=out,
        **_new_group(terminal),
    )


def keep_child_status() -> None:
    """Make sure the exit status of a child can be read: a SIGCHLD that the process
    inherited as ignored (some launchers set it) has every child reaped by the kernel, and
    ``wait`` then says 0 for a child killed by SIGTERM. Restored to the default (in the
    main thread, where handlers can be set; a server calls this when it starts)."""
    try:
        if signal.getsignal(signal.SIGCHLD) == signal.SIG_IGN:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    except (ValueError, OSError, AttributeError):  # not the main thread: as it was
        pass


def _foreground_terminal() -> int | None:
    """stdin's descriptor if it is a terminal whose foreground group is agentout's."""
    try:
        if os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp():
            return 0
    except OSError:
        pass
    return None


def _new_group(terminal: int | None) -> dict[str, Any]:
    if _capture:
        return {}
    if terminal is None:
        if sys.version_info >= (3, 11):
            return {"process_group": 0}
        return {"preexec_fn": os.setpgrp}  # pragma: no cover - Python 3.10

    def take_terminal() -> None:  # in the child, before exec: as a shell does for a job
        os.setpgrp()
        previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        os.tcsetpgrp(terminal, os.getpgrp())
        signal.signal(signal.SIGTTOU, previous)

    return {"preexec_fn": take_terminal}


def _terminal_back(child: Child) -> None:
    """Give the terminal back to agentout's group when the child's group had it."""
    try:
        if os.isatty(0) and os.tcgetpgrp(0) == child.pgid:
            previous = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
            try:
                os.tcsetpgrp(0, os.getpgrp())
            finally:
                signal.signal(signal.SIGTTOU, previous)
    except OSError:
        pass


def _forward(child: Child, grace: float) -> dict[int, Any]:
    """SIGINT, SIGTERM and SIGHUP to agentout go to the child's group; a second one, or
    ``grace`` seconds, and the group is killed. The handlers replaced, to put back. Only
    the main thread can install handlers; elsewhere the defaults stay."""

    def forward(signum: int, _frame: FrameType | None) -> None:
        if child.pgid > 0:  # in a client's capture the command, in this group, has it
            child.end(signum, grace)

    previous: dict[int, Any] = {}
    try:
        for sig in _FORWARDED:
            previous[sig] = signal.signal(sig, forward)
    except ValueError:  # not the main thread
        _put_back(previous)
        return {}
    return previous


def _put_back(handlers: dict[int, Any]) -> None:
    for sig, handler in handlers.items():
        signal.signal(sig, handler)


# -- running one command to the end ---------------------------------------------------------


def run(
    argv: Sequence[str],
    on_output: Callable[[bytes], None],
    *,
    cwd: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    stdin: int | IO[Any] | None = None,
    timeout: float | None = None,
    cancel: threading.Event | None = None,
    on_tick: Callable[[float], None] | None = None,
    grace: float = GRACE_SECONDS,
    linger: float = LINGER_SECONDS,
    downstream: int | None = None,
) -> CommandOutcome:
    """Run ``argv`` to its end, calling ``on_output`` with each piece of its merged output.

    ``timeout`` (seconds) or ``cancel`` (set from any thread) end the group: SIGTERM,
    then SIGKILL after ``grace``; the status is then 124 on a timeout. ``on_tick`` is
    called with the seconds elapsed whenever the output is quiet for a moment (a
    heartbeat). Signals to agentout are forwarded to the group (main thread only).
    ``downstream``: a descriptor whose reader going away sends the group SIGPIPE (see
    the module docstring).
    """
    started = start(argv, cwd=cwd, env=env, stdin=stdin)
    if isinstance(started, CommandOutcome):
        return started
    if _capture:
        on_output = _copied(on_output)
    child = started
    _thread.start_new_thread(child.reap, ())
    watch = Watch(child, timeout, cancel, grace, on_tick)
    try:
        handlers = _forward(child, grace)
        try:
            held = drain(child.fd, child, on_output, watch, linger, pipe_or_socket(downstream))
        finally:
            _put_back(handlers)
            _terminal_back(child)
            os.close(child.fd)
        while not child.reaped(TICK):  # the pipe closed, the child goes on
            watch.check()
    except BaseException:
        child.end(signal.SIGKILL, 0.0)  # never leave a group running behind a failed call
        child.reaped(-1)
        raise
    finally:
        child.release()
    status, exited = child.status, child.exited
    assert status is not None
    assert exited is not None
    duration = exited - child.started
    killed_by = -status if status < 0 else None
    held_open = linger if held else None
    if watch.stopped == "timeout":
        error = f"timed out after {timeout:g}s; stopped"
        return CommandOutcome(
            child.argv, TIMEOUT_STATUS, duration, killed_by, error, True, held_open=held_open
        )
    exit_status = 128 - status if status < 0 else status
    if watch.stopped == "cancel":
        error = "cancelled; stopped"
        return CommandOutcome(
            child.argv, exit_status, duration, killed_by, error, cancelled=True,
            held_open=held_open,
        )  # fmt: skip
    return CommandOutcome(child.argv, exit_status, duration, killed_by, held_open=held_open)
