"""The line shell: what a task runner starts for each recipe line under ``agentout run``.

The runner calls it as it would call its shell (``SHELL FLAGS... -c LINE [ARGS]``); the
launcher ``agentout.sources.tasks._plans`` writes puts agentout's own options first::

    python -m agentout.sources.tasks.shell --runner=make --shell=/bin/sh --lock=DIR/lock \\
        -- [--target=TARGET] -c 'pytest -q'

Most calls are handed straight to the real shell with ``exec``, nothing imported: a
call that is not ``-c LINE``, output that is not the runner's own (make's
``$(shell ...)``, just's backticks, a recipe's ``$(SHELL) script``), and a line that
starts make again (``$(MAKE) -C sub``: its own lines are reduced one by one) or
agentout. The
rest run as ``agentout run`` runs a command (the same shell and flags, the same stdin,
directory and environment; a test command gives the test report), and the line's
reduced output is printed whole, under a label naming its recipe and line, while a
lock is held, so ``make -j`` never mixes two lines' output. The exit status is the
shell's, and a line killed by a signal kills the line shell with the same signal.
"""

from __future__ import annotations

import os
import sys

__all__ = ["main"]

# A line that starts one of these is passed straight to the shell: a sub-make is given
# the line shell too (make passes SHELL on in MAKEFLAGS), so its own lines come reduced
# already, and agentout reduces what it runs itself. Other runners (just, npm) started
# from a recipe do not inherit the line shell: their output is the line's, reduced whole.
_NESTED = {"make", "gmake", "agentout"}


def main(argv: list[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    own: dict[str, str] = {}
    while args and args[0] != "--":
        name, _, value = args.pop(0).partition("=")
        own[name.lstrip("-")] = value
    args = args[1:]
    shell = own.get("shell") or "/bin/sh"
    target = None
    if own.get("runner") == "make" and args and args[0].startswith("--target="):
        target = args.pop(0)[len("--target=") :]
    at = _command_at(args)
    if at is None or not _runner_output() or _nested(args[at]):
        _exec(shell, args)
        return
    from agentout.sources.tasks._line import run_line

    runner, lock, launcher = own.get("runner") or "", own.get("lock"), own.get("launcher")
    run_line(shell, args, at, runner, target, lock, own.get("own"), launcher)


def _exec(shell: str, args: list[str]) -> None:
    _default_signals()
    try:
        os.execvp(shell, [shell, *args])
    except OSError as exc:
        sys.stderr.write(f"agentout: {shell}: {exc.strerror or exc}\n")
        sys.exit(127)


def _default_signals() -> None:
    """SIGPIPE and SIGXFSZ back at their default: Python ignores both from its start,
    and an ignored signal stays ignored across ``exec`` (``yes | head -1`` would end in
    an error instead of quietly). ``_signal`` is the module Python loaded at start, so
    this path still imports nothing."""
    signals = sys.modules.get("_signal")
    if signals is None:  # not CPython: pay for the import
        import signal

        signals = signal
    for name in ("SIGPIPE", "SIGXFSZ"):
        if hasattr(signals, name):
            signals.signal(getattr(signals, name), signals.SIG_DFL)


def _command_at(args: list[str]) -> int | None:
    """Where the command string is in a shell's arguments (``-ec 'LINE' ARGS``,
    ``-o pipefail -c 'LINE'``), or None when they do not ask for ``-c``."""
    asked = False
    i = 0
    while i < len(args):
        word = args[i]
        if word == "--":
            i += 1
            break
        if word in ("-o", "+o", "-O", "+O"):
            i += 2
            continue
        if word.startswith("--"):
            i += 1  # bash's long options: --login, --norc, --posix
            continue
        if len(word) > 1 and word[0] in "-+":
            asked = asked or (word[0] == "-" and "c" in word[1:])
            i += 1
            continue
        break
    return i if asked and i < len(args) else None


def _runner_output() -> bool:
    """Whether our stdout is the runner's own (a recipe line), not a pipe the runner
    reads (make's ``$(shell ...)``, just's backticks). Only where /proc tells."""
    try:
        ours = os.fstat(1)
        theirs = os.stat(f"/proc/{os.getppid()}/fd/1")
    except OSError:
        return False
    return (ours.st_dev, ours.st_ino) == (theirs.st_dev, theirs.st_ino)


def _nested(line: str) -> bool:
    words = line.replace("&&", " ").replace("||", " ").replace(";", " ").split()
    make = os.path.basename(os.environ.get("MAKE", "make"))
    return any(os.path.basename(word) in _NESTED or word == make for word in words)


if __name__ == "__main__":
    main()
