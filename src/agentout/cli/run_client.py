"""``agentout run`` served warm: the command runs here, the warm server delivers its output.

An agent runs its shell commands through ``agentout run`` (the hooks' rewrite), so its
start is paid per command, and loading the reducers, the tokenizer and the secret scanner
takes longer than most commands do. Here the command runs in this process, as the cold
path runs it (``agentout.process.run``: its own process group, signals forwarded, the
timeout), so it stays inside the agent's sandbox and its process tree. Its output is
captured whole: in memory, past ``IN_MEMORY`` bytes in an unnamed file whose descriptor
is passed along. Then the output, how the command ended, the arguments, the folder, the
environment and the umask go to the warm hook server (``agentout.cli.warm_server``).
Its child delivers them as a fresh ``agentout run`` would (``agentout.cli.quick.deliver``
with a runner that replays the output), and what it prints is printed here, with its
exit status. With no server, or one that fails, the same delivery runs here, and a
server is started for the next call.

Served so: every call the quick path reads, except a test program or a task runner
(each runs the command its own way), a terminal on stderr (a person there gets the
heartbeat while it runs), a remote store (its upload would hold the answer), and what
``agentout.agents.hook_client.served`` turns away. Only built-in modules are imported
before the answer.
"""

from __future__ import annotations

import os
import sys

from agentout.agents import hook_client
from agentout.process import CommandOutcome

TYPE_CHECKING = False  # typing is not imported at run time: this is every command's path
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

__all__ = ["IN_MEMORY", "Output", "deliver", "main", "run", "served"]

IN_MEMORY = 8 << 20  # bytes of output kept in memory; the rest goes to an unnamed file
_PIECE = 1 << 20  # replayed in pieces of the size agentout.process reads


def main(args: Sequence[str]) -> bool:
    """``agentout run ARGS``: served warm when it can be, else by ``agentout.cli.quick``
    in this process; False to leave a line neither can read to click."""
    from agentout.cli import quick

    found = quick.options(args)
    if found is None:
        return False
    if served(found):
        run(args, found)
    quick.deliver(**found)
    return True  # pragma: no cover - both exit


def served(options: dict[str, Any]) -> bool:
    """Whether this ``agentout run`` (options as ``agentout.cli.quick.parse`` reads them)
    goes to the warm server."""
    if not hook_client.served() or os.environ.get("AGENTOUT_STORE", "").strip():
        return False
    if os.isatty(2):
        return False
    command: tuple[str, ...] = options["command"]
    if options["shell"]:
        return len(command) == 1  # anything else is the cold path's error to give
    if options["no_reduce"]:
        return True
    from agentout.sources.tasks import RUNNERS
    from agentout.sources.testing.programs import TEST_PROGRAMS

    names = {os.path.basename(word).lower() for word in command}
    return not names & TEST_PROGRAMS and os.path.basename(command[0]) not in RUNNERS


class Output:
    """A command's merged output, kept whole and in order: in memory up to ``IN_MEMORY``
    bytes, the rest in a file with no name (gone once closed). Where no such file can be
    made, or writing it fails (a full disk), the rest stays in memory (``tail``); such
    output is delivered in this process, the file not being all of it."""

    def __init__(self, memory: bytes = b"", file: int | None = None) -> None:
        self.memory = bytearray(memory)
        self.file = file
        self.tail = bytearray()
        self.size = len(memory)
        self._file_tried = file is not None

    def feed(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if not self._file_tried and len(self.memory) + len(chunk) > IN_MEMORY:
            self._file_tried = True
            self.file = _unnamed_file()
        if self.file is None or self.tail:
            (self.tail if self._file_tried else self.memory).extend(chunk)
            return
        view = memoryview(chunk)
        try:
            while view:
                view = view[os.write(self.file, view) :]
        except OSError:
            self.tail += view  # what the file did not take: in order after it

    @property
    def sendable(self) -> bool:
        """Whether memory and the file hold it all (what the warm server is sent)."""
        return not self.tail

    def replay(self, on_output: Callable[[bytes], None]) -> None:
        """Hand everything to ``on_output``, in order, in pieces."""
        _pieces(self.memory, on_output)
        if self.file is not None:
            offset = 0
            while chunk := os.pread(self.file, _PIECE, offset):
                on_output(chunk)
                offset += len(chunk)
        _pieces(self.tail, on_output)

    def close(self) -> None:
        if self.file is not None:
            os.close(self.file)
            self.file = None


def _pieces(data: bytearray, on_output: Callable[[bytes], None]) -> None:
    view = memoryview(data)
    for start in range(0, len(view), _PIECE):
        on_output(bytes(view[start : start + _PIECE]))


def _unnamed_file() -> int | None:
    """A file for output past ``IN_MEMORY``, in ``TMPDIR`` (else ``/tmp``), readable by
    this user only, with no name: Linux's ``O_TMPFILE``, elsewhere a name removed at once.
    None when none can be made there."""
    folder = os.environ.get("TMPDIR") or "/tmp"
    flags = os.O_RDWR | os.O_CLOEXEC
    try:
        return os.open(folder, flags | os.O_TMPFILE, 0o600)
    except (AttributeError, OSError):
        pass
    for _ in range(8):
        name = os.path.join(folder, f"agentout-run-{os.urandom(8).hex()}")
        try:
            fd = os.open(name, flags | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            continue
        except OSError:
            return None
        os.unlink(name)
        return fd
    return None


# How the command ended, ahead of its output in what the server is sent: the fields of
# CommandOutcome but argv (the server has the arguments), separated by NUL.
def _outcome_bytes(outcome: CommandOutcome) -> bytes:
    fields = [
        str(outcome.exit_status),
        repr(outcome.duration),
        "" if outcome.signal is None else str(outcome.signal),
        outcome.error or "",
        "1" if outcome.timed_out else "",
        "1" if outcome.cancelled else "",
    ]
    meta = "\0".join(fields).encode("utf-8", "surrogateescape")
    return b"%08d" % len(meta) + meta


def _outcome_from(meta: bytes, argv: Sequence[str]) -> CommandOutcome:
    """The outcome ``_outcome_bytes`` wrote (``meta``, its length aside), for ``argv``."""
    fields = meta.decode("utf-8", "surrogateescape").split("\0")
    status, duration, signal, error, timed_out, cancelled = fields
    return CommandOutcome(
        tuple(argv), int(status), float(duration), int(signal) if signal else None,
        error or None, bool(timed_out), bool(cancelled),
    )  # fmt: skip


def _replaying(
    output: Output, outcome: Callable[[Sequence[str]], CommandOutcome]
) -> Callable[..., CommandOutcome]:
    """A runner for ``agentout.sources.command.run`` that gives the captured output and
    the outcome (``outcome(argv)``) instead of running the command again."""

    def runner(argv: Sequence[str], on_output: Callable[[bytes], None], **_: Any) -> CommandOutcome:
        output.replay(on_output)
        return outcome(argv)

    return runner


def run(args: Sequence[str], options: dict[str, Any]) -> None:
    """Run the command, have its output delivered warm (or here), exit with its status."""
    from agentout import process

    command: tuple[str, ...] = options["command"]
    argv = process.shell_argv(command[0]) if options["shell"] else command
    output = Output()
    outcome = process.run(argv, output.feed, timeout=options.get("timeout"))
    path = hook_client.server_path() if output.sendable else None
    if path is not None:
        fds = [] if output.file is None else [output.file]
        data = _outcome_bytes(outcome) + output.memory
        try:
            # No time limit: the server's child does what this process would do, and a
            # large output takes as long either way; one that dies leaves the call here.
            reply = hook_client.ask(path, ["run", *args], data, fds, wait=None)
        except OSError:  # the server failed mid-call: delivered here, nothing is lost
            reply = None
        if reply is not None:
            status, out, err = reply
            hook_client.write_all(1, out)
            hook_client.write_all(2, err)
            sys.exit(status)
        hook_client.start_server(path)
    from agentout.cli import quick

    quick.deliver(**options, runner=_replaying(output, lambda _argv: outcome))


def deliver(args: Sequence[str], data: bytes, fds: Sequence[int]) -> int:
    """In the warm server's child: deliver the output of ``agentout run ARGS`` that its
    client ran (``data``: the outcome, then the output; past ``IN_MEMORY``, the rest in
    the file ``fds[0]``), printing what a fresh ``agentout run`` prints. Its exit status."""
    from agentout.cli import quick

    options = quick.options(args)
    if options is None or len(fds) > 1:
        raise ValueError("not a call this server's client makes")
    end = 8 + int(data[:8])
    meta, output = data[8:end], Output(data[end:], fds[0] if fds else None)
    try:
        quick.deliver(**options, runner=_replaying(output, lambda argv: _outcome_from(meta, argv)))
    except SystemExit as done:
        code = done.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    finally:
        output.close()
    return 0
