"""``agentout run --capture claude -- CMD``: a command the agent ran in Claude Code's shell,
its output replaced in the client's own capture of it.

agentout's function for a program in the session's shell (``agentout.agents.claude_shell``)
starts this when the command's stdout and stderr are one regular file. Unless that file is
Claude Code's capture of a foreground call of this session (``claude_shell.capture_call``),
the program is started in this process's place (``exec``): its bytes, its status and the
signals it gets are its own, as if there were no function.

Else the command runs in this process group (the one Claude Code signals and ends), its
output copied to the file as it arrives (``agentout.process.in_client_capture``): whatever
happens next (the client's timeout moves the call to the background and the model reads
the file, the client's kill, a failure of agentout's), the file holds what the command
printed. It is then delivered as ``agentout run`` delivers it (by the warm server when one
runs): when the agent is better served by the output as printed, the file is left as it
is; else the command's part of it (what an earlier command of the call printed stays) is
given agentout's form, unless another process of the call wrote to the file meanwhile.
The exit status is the command's, a death by signal included; Claude Code prints its
own ``Exit code N``.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing is not imported at run time: this is every command's path
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn

    from agentout.process import CommandOutcome

__all__ = ["main", "passthrough", "replace", "start"]


def start(args: Sequence[str]) -> None:
    """``agentout run ARGS`` with ``--capture``: run as ``main``; returns only when the
    line is not one ``agentout.cli.quick`` reads (click then reads it, and says why)."""
    from agentout.cli import quick

    found = quick.options(args)
    if found is not None and found.get("capture") is not None:
        main(args, found)


def main(args: Sequence[str], options: dict[str, Any], *, warm: bool = True) -> NoReturn:
    """Run ``options["command"]`` as the client's capture wants it; never returns.
    ``args``: the words of the call, for the warm server (``warm``: it may deliver)."""
    from agentout.agents import claude_shell
    from agentout.agents.claude_shell import capture_call

    command: tuple[str, ...] = options["command"]
    call = None if options["shell"] else capture_call(os.environ)
    if call is None:
        passthrough(command)
    from agentout import process
    from agentout.cli import run_client

    start = os.lseek(1, 0, os.SEEK_END)  # what the call printed before this command
    process.in_client_capture(1)
    # the call, for the delivery (here, or by the warm server in this environment)
    os.environ[claude_shell.ENV_CALL] = call.call or ""
    os.environ[claude_shell.ENV_COMMAND] = call.command
    printed = _Printed()
    outcome: CommandOutcome | None = None
    status = 1
    try:
        if warm and run_client.served(options):
            output, outcome = run_client.execute(options)
            reply = None
            if output.streamed is None:
                reply = run_client.delivered_warm(args, output, outcome)
            if reply is not None:
                status, out, err = reply
                printed.restore()
                _finish(start, out, err, status, outcome)
            status = printed.run(
                output.streamed.finish
                if output.streamed is not None
                else lambda _o: run_client.deliver_here(options, output, _o),
                outcome,
            )
        else:
            from agentout.cli import quick

            status = printed.run(lambda _o: quick.deliver(**options), None)
    except KeyboardInterrupt:  # a second Ctrl-C while delivering: the file stays as printed
        printed.restore()
        _exit(outcome.exit_status if outcome is not None else 130, outcome)
    except Exception as exc:  # the file holds the output as printed: it stays so
        printed.restore()
        _say(f"agentout: {type(exc).__name__}: {exc}; the output is as printed")
        _exit(outcome.exit_status if outcome is not None else status, outcome)
    out, err = printed.restore()
    _finish(start, out, err, status, outcome)


def passthrough(command: Sequence[str]) -> NoReturn:
    """The program in this process's place, as if agentout were not there."""
    try:
        os.execvp(command[0], list(command))
    except OSError as exc:
        import errno

        code = 127 if exc.errno == errno.ENOENT else 126
        _say(f"agentout: {command[0]}: {exc.strerror or exc}")
        os._exit(code)


class _Printed:
    """What the delivery prints (stdout, stderr), kept here rather than written to the
    client's file, which holds the command's own output."""

    def __init__(self) -> None:
        import io

        self.stdout, self.stderr = sys.stdout, sys.stderr
        self.out, self.err = io.StringIO(), io.StringIO()
        sys.stdout, sys.stderr = self.out, self.err

    def run(self, deliver: Any, outcome: CommandOutcome | None) -> int:
        """Call ``deliver(outcome)``; the exit status it ends with."""
        try:
            result = deliver(outcome)
        except SystemExit as done:
            from agentout.cli.run_client import _exit_status

            return _exit_status(done)
        return int(result) if isinstance(result, int) else 0

    def restore(self) -> tuple[bytes, bytes]:
        if sys.stdout is self.out:
            sys.stdout, sys.stderr = self.stdout, self.stderr
        return (
            self.out.getvalue().encode("utf-8", "surrogateescape"),
            self.err.getvalue().encode("utf-8", "surrogateescape"),
        )


def replace(fd: int, start: int, text: bytes) -> bool:
    """The command's output in the client's capture file (``fd``: from ``start``, where
    it began, to its end) replaced by ``text``; False, and the file left as it is, when
    the file holds more than the command's output copied there (another process of the
    call wrote to it meanwhile: ``a & b``)."""
    from agentout import process
    from agentout.agents.hook_client import write_all

    copied = process.copied_to_capture()
    if copied < 0 or os.fstat(fd).st_size != start + copied:
        return False
    os.ftruncate(fd, start)
    write_all(fd, text)  # the file is opened to append: at its end, now ``start``
    return True


def _finish(
    start: int, out: bytes, err: bytes, status: int, outcome: CommandOutcome | None
) -> NoReturn:
    """The command's output in the file given agentout's form (``out``) when there is
    one; what agentout has to say (``err``) after it; then the command's exit."""
    try:
        if out:
            replace(1, start, out)
        if err:
            from agentout.agents.hook_client import write_all

            write_all(2, err)
    except OSError:
        pass
    _exit(status, outcome)


def _exit(status: int, outcome: CommandOutcome | None) -> NoReturn:
    """Exit as the command did: killed by the same signal when a signal ended it."""
    if outcome is not None and outcome.signal is not None and not outcome.timed_out:
        import signal

        sys.stdout.flush()
        try:
            signal.signal(outcome.signal, signal.SIG_DFL)
            os.kill(os.getpid(), outcome.signal)
        except (OSError, ValueError):
            pass
    sys.exit(status)


def _say(line: str) -> None:
    import contextlib

    with contextlib.suppress(OSError):
        os.write(2, (line + "\n").encode("utf-8", "replace"))
