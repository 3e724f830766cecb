"""``agentout run`` served warm: the command runs here, the warm server delivers its output.

An agent runs its shell commands through ``agentout run`` (the hooks' rewrite), so its
start is paid per command, and loading the reducers, the tokenizer and the secret scanner
takes longer than most commands do. Here the command runs in this process, as the cold
path runs it (``agentout.process.run``: its own process group, signals forwarded, the
timeout), so it stays inside the agent's sandbox and its process tree. Its output is
kept in memory; then the output, how the command ended, the arguments, the folder, the
environment and the umask go to the warm hook server (``agentout.cli.warm_server``).
Its child delivers them as a fresh ``agentout run`` would (``agentout.cli.quick.deliver``
with a runner that replays the output), and what it prints is printed here, with its
exit status. With no server, or one that fails, the same delivery runs here, and a
server is started for the next call. An output past ``IN_MEMORY`` bytes is delivered
here as it arrives (``Streamed``), as with no server: its time is the output's, not
the start's, and it is read once, into the store.

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

__all__ = ["IN_MEMORY", "RUN_WAIT", "Output", "Streamed", "deliver", "main", "run", "served"]

IN_MEMORY = 1 << 20  # bytes of output sent to the server; past that, delivered here
# Seconds the server's child has to deliver once it took the call (most take a fraction
# of one); past that it is ended and the output delivered here.
RUN_WAIT = 60.0
_PIECE = 1 << 20  # replayed in pieces of the size agentout.process reads
_QUEUED = 4  # pieces of output waiting for a delivery here (each at most 1 MiB)


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
    if options["shell"] and len(command) != 1:
        return False  # the cold path's error to give
    if options["no_reduce"]:
        return True
    from agentout.sources.tasks import RUNNERS
    from agentout.sources.testing.programs import TEST_PROGRAMS

    if options["shell"]:
        # one command that names a test program or a task runner: the cold path reads the
        # line (agentout.cli.quick.one_command) and runs it as `run --` runs it; a
        # pipeline or a list (bash runs it whole, either way) is served
        line = command[0].replace("2>&1", " ")
        if any(operator in line for operator in ("|", ";", "&", "\n")):
            return True
        for quote in "\"'`()<>":
            line = line.replace(quote, " ")
        names = {os.path.basename(word).lower() for word in line.split()}
        return not names & (TEST_PROGRAMS | RUNNERS)
    names = {os.path.basename(word).lower() for word in command}
    return not names & TEST_PROGRAMS and os.path.basename(command[0]) not in RUNNERS


class Output:
    """A command's merged output as it arrives: in memory while it is at most
    ``IN_MEMORY`` bytes (the warm server is then sent it whole); past that, handed as it
    comes to a delivery in this process (``Streamed``), as with no server."""

    def __init__(self, options: dict[str, Any], memory: bytes = b"") -> None:
        self.options = options
        self.memory = bytearray(memory)
        self.streamed: Streamed | None = None

    def feed(self, chunk: bytes) -> None:
        if self.streamed is None and len(self.memory) + len(chunk) <= IN_MEMORY:
            self.memory += chunk
            return
        if self.streamed is None:
            self.streamed = Streamed(self.options, bytes(self.memory))
            self.memory.clear()
        self.streamed.feed(chunk)

    def replay(self, on_output: Callable[[bytes], None]) -> None:
        """Hand what is in memory to ``on_output``, in order, in pieces."""
        view = memoryview(self.memory)
        for start in range(0, len(view), _PIECE):
            on_output(bytes(view[start : start + _PIECE]))


class Streamed:
    """A delivery in this process, in a thread of its own, of an output too large to
    hold: it reads the output as the command prints it, as ``agentout run`` with no server
    does, so the output reaches the store once and memory stays bounded (a full queue
    holds the reader back, and with it the command, as a slow reader would)."""

    def __init__(self, options: dict[str, Any], head: bytes) -> None:
        import queue
        import threading

        self.chunks: queue.Queue[bytes | None] = queue.Queue(maxsize=_QUEUED)
        self.chunks.put(head)
        self.outcome: CommandOutcome | None = None
        self.status = 1  # unless the delivery says otherwise
        self.thread = threading.Thread(target=self._deliver, args=(options,), daemon=True)
        self.thread.start()

    def feed(self, chunk: bytes | None) -> None:
        import queue

        while self.thread.is_alive():
            try:
                self.chunks.put(chunk, timeout=0.5)
                return
            except queue.Full:
                continue

    def finish(self, outcome: CommandOutcome) -> int:
        """The command ended: the delivery completes; its exit status."""
        self.outcome = outcome
        self.feed(None)
        self.thread.join()
        return self.status

    def _deliver(self, options: dict[str, Any]) -> None:
        from agentout.cli import quick

        def runner(argv: Sequence[str], on_output: Callable[[bytes], None], **_: Any) -> Any:
            while (chunk := self.chunks.get()) is not None:
                on_output(chunk)
            assert self.outcome is not None
            return self.outcome.replace(argv=tuple(argv))

        try:
            quick.deliver(**options, runner=runner)
        except SystemExit as done:
            self.status = _exit_status(done)


def _exit_status(done: SystemExit) -> int:
    """The status ``sys.exit`` was given, as the interpreter would make it."""
    if done.code is None or isinstance(done.code, int):
        return done.code or 0
    print(done.code, file=sys.stderr)
    return 1


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
        "" if outcome.held_open is None else repr(outcome.held_open),
    ]
    meta = "\0".join(fields).encode("utf-8", "surrogateescape")
    return b"%08d" % len(meta) + meta


def _outcome_from(meta: bytes, argv: Sequence[str]) -> CommandOutcome:
    """The outcome ``_outcome_bytes`` wrote (``meta``, its length aside), for ``argv``."""
    fields = meta.decode("utf-8", "surrogateescape").split("\0")
    status, duration, signal, error, timed_out, cancelled, held_open = fields
    return CommandOutcome(
        tuple(argv), int(status), float(duration), int(signal) if signal else None,
        error or None, bool(timed_out), bool(cancelled),
        float(held_open) if held_open else None,
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
    """Run the command, have its output delivered warm (or here), exit with its status.

    Every wait has a limit: a server whose spare does not take the call within
    ``hook_client.TAKE_WAIT`` seconds (stopped, or the spare gone), or whose child does
    not answer within ``RUN_WAIT``, leaves the delivery to this process (the child is
    ended first). Ctrl-C while it waits does the same, and the output is then kept in
    the store, its reference printed."""
    output, outcome = execute(options)
    if output.streamed is not None:
        _no_interrupt()  # delivered here, under way: Ctrl-C now would only lose it
        sys.exit(output.streamed.finish(outcome))
    try:
        reply = delivered_warm(args, output, outcome)
    except KeyboardInterrupt:  # delivered here, kept in the store and named
        _no_interrupt()
        reply, options = None, {**options, "mode": "file"}
    if reply is not None:
        status, out, err = reply
        hook_client.write_all(1, out)
        hook_client.write_all(2, err)
        sys.exit(status)
    deliver_here(options, output, outcome)


def execute(options: dict[str, Any]) -> tuple[Output, CommandOutcome]:
    """Run the command of ``options``: its output (in memory, or streamed to a delivery
    here past ``IN_MEMORY``) and how it ended. Should agentout's own stdout lose its
    reader (a pipe), the command is ended as the pipeline would end it."""
    from agentout import process

    command: tuple[str, ...] = options["command"]
    argv = process.shell_argv(command[0]) if options["shell"] else command
    output = Output(options)
    outcome = process.run(argv, output.feed, timeout=options.get("timeout"), downstream=1)
    return output, outcome


def delivered_warm(
    args: Sequence[str], output: Output, outcome: CommandOutcome
) -> tuple[int, bytes, bytes] | None:
    """(exit status, stdout, stderr) of the delivery by the warm server; None when no
    server delivered it (one is then started for the next call, unless one took the call
    and did not answer in time). KeyboardInterrupt while it waits is the caller's."""
    path = hook_client.server_path()
    if path is None:
        return None
    data = _outcome_bytes(outcome) + output.memory
    try:
        reply = hook_client.ask(path, ["run", *args], data, wait=RUN_WAIT)
    except OSError:  # taken and not answered in time, or failed mid-call: delivered here
        return None  # a server is there (it took the call): none is started
    if reply is None:
        hook_client.start_server(path)
    return reply


def deliver_here(options: dict[str, Any], output: Output, outcome: CommandOutcome) -> None:
    """The delivery in this process, of output already captured; exits."""
    from agentout.cli import quick

    quick.deliver(**options, runner=_replaying(output, lambda _argv: outcome))


def _no_interrupt() -> None:
    """Ctrl-C from now on is not a traceback in the middle of a delivery: the command has
    ended, and what is left is to give its output (``_signal``: ``signal`` imports enum)."""
    if TYPE_CHECKING:
        import signal
    else:
        import _signal as signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def deliver(args: Sequence[str], data: bytes) -> int:
    """In the warm server's child: deliver the output of ``agentout run ARGS`` that its
    client ran (``data``: the outcome, then the output), printing what a fresh
    ``agentout run`` prints. Its exit status."""
    from agentout.cli import quick

    options = quick.options(args)
    if options is None or not data[:8].isdigit():
        raise ValueError("not a call this server's client makes")
    end = 8 + int(data[:8])
    meta, output = data[8:end], Output(options, data[end:])
    try:
        quick.deliver(**options, runner=_replaying(output, lambda argv: _outcome_from(meta, argv)))
    except SystemExit as done:
        return _exit_status(done)
    return 0
