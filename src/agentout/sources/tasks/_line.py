"""One recipe line run and reduced: the part of the line shell that imports agentout.

The line runs as the runner would have run it: ``SHELL FLAGS... -c LINE``, its output
delivered as ``agentout run`` delivers a command's, with the reducer of the command the
line runs. A line
that is one test command with plain words (``pytest -q tests``, or ``cd DIR &&`` such a
command) is run as ``agentout run`` runs a test command, for the test report.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import sys

from agentout.read.visible import MARKS, visible

TYPE_CHECKING = False  # typing is not imported at run time: every recipe line pays it
if TYPE_CHECKING:
    from collections.abc import Iterator

    from agentout.reducers import Reducer
    from agentout.store.capture import Capture

__all__ = ["label", "reducer_words", "run_line"]

REDUCED_AT_MOST = 0.85  # as agentout.deliver.text: a labelled form, when this much smaller
# Python ignores these from its start, and a spawned child inherits an ignored signal:
# the line gets them back at their default, as the runner would give them (as subprocess)
_IGNORED = (signal.SIGPIPE, signal.SIGXFSZ)
_NPM_SHELL = "npm_config_script_shell"  # npm exports its settings in lower case
LABEL_CHARS = 100
LINGER = 2.0  # seconds the pipe is read after the line's shell exited (as agentout run)
# Words that only set the stage for the command a line runs (``cd sub && ruff check``).
_STAGE = {"cd", "pushd", "popd", "export", "set", "unset", ":", "true", "echo", "printf"}
_PLAIN = re.compile(r"[^;&|<>()$`*?\[\]{}~\\#\n!]*\Z")
_CD_THEN = re.compile(r"\s*cd\s+([^\s;&|]+)\s*&&(.*)\Z", re.S)


def run_line(
    shell: str,
    args: list[str],
    at: int,
    runner: str,
    target: str | None,
    lock: str | None,
    own: str | None,
    launcher: str | None = None,
) -> None:
    """Run the line, print its label and its reduced output, exit as the shell did."""
    line = args[at]
    if launcher:
        as_without_agentout(runner, launcher)
    tests = _test_command(line)
    printed: bytes | None = None
    if tests is not None:
        from agentout.sources.command import run

        words, cwd = tests
        done = run(words, cwd=cwd)
        text, status, killed = done.delivery.text, done.outcome.exit_status, done.outcome.signal
    else:
        text, printed, status, killed = _run_shell(shell, args, reducer_words(line))
    block = _marked(label(runner, target, line), text, own or "").encode("utf-8", "replace")
    if printed is not None and (not text or len(block) > REDUCED_AT_MOST * len(printed)):
        _write(printed, lock)  # as the command printed it: agentout's form was no smaller
    elif text.strip():
        _write(block, lock)
    if killed is not None:
        _end_by(killed)
    sys.exit(status)


def _end_by(number: int) -> None:
    """End by the signal that ended the line's shell, so the runner reports it as it
    would without agentout (``Killed``, ``Terminated``, ``Broken pipe``). SIGKILL cannot
    be given a handler (its action is the default already)."""
    with contextlib.suppress(OSError, ValueError):
        signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)


def as_without_agentout(runner: str, launcher: str) -> None:
    """The environment the runner gives a recipe line without agentout. make puts
    ``SHELL=LAUNCHER`` from its command line in ``MAKEFLAGS`` (and ``MAKEOVERRIDES``),
    and in ``SHELL`` when the caller had none; npm and pnpm put ``--script-shell`` in
    ``npm_config_script_shell``. Taken out here for this line, so that what it runs (a
    script that reads ``$MAKEFLAGS``, a make or npm started from a script) sees what it
    would. A ``$(MAKE)`` line keeps them: the sub-make is given the line shell that way."""
    if runner in ("npm", "pnpm"):
        if os.environ.get(_NPM_SHELL) == launcher:
            del os.environ[_NPM_SHELL]
        return
    if runner != "make":
        return
    flags = os.environ.get("MAKEFLAGS")
    ours = re.compile(rf" ?SHELL={re.escape(launcher)}(?:\\ --target=\$\$@)?(?= |\Z)")
    if flags is not None and ours.search(flags):
        flags = ours.sub("", flags, count=1)
        if flags == " --" or flags.endswith(" --"):  # no other variable was set
            flags = flags[:-3]
            os.environ.pop("MAKEOVERRIDES", None)
        os.environ["MAKEFLAGS"] = flags
    if os.environ.get("SHELL", "").startswith(launcher):
        del os.environ["SHELL"]  # make put it there: the caller's environment had none


def _run_shell(
    shell: str, args: list[str], words: tuple[str, ...]
) -> tuple[str, bytes | None, int, int | None]:
    """The line run by its shell, in the runner's process group (the terminal's signals
    reach it as they would), stdout and stderr in one pipe: (what the agent is handed,
    the output as printed when that is what it is handed, the status, the signal that
    ended it). Agentout's form (a label, the reduced output, a closing line) is handed
    only when it is smaller than the output; else the output goes as printed, and the
    runner's own lines (``make: *** [...] Error 1``) say how the line ended. A line that
    prints nothing costs no more than starting it: agentout's delivery is imported only
    when there is output."""
    import time

    read, write = os.pipe()
    started = time.monotonic()
    actions = [
        (os.POSIX_SPAWN_DUP2, write, 1),
        (os.POSIX_SPAWN_DUP2, write, 2),
        (os.POSIX_SPAWN_CLOSE, write),
        (os.POSIX_SPAWN_CLOSE, read),
    ]
    try:
        pid = os.posix_spawnp(
            shell, [shell, *args], dict(os.environ), file_actions=actions, setsigdef=_IGNORED
        )
    except OSError as exc:
        os.close(read)
        os.close(write)
        return f"agentout: {shell}: {exc.strerror or exc}\n", None, 127, None
    os.close(write)
    ignored = {sig: signal.signal(sig, signal.SIG_IGN) for sig in (signal.SIGINT, signal.SIGQUIT)}
    forwarded = (signal.SIGTERM, signal.SIGHUP)
    for sig in forwarded:  # meant for the line: the shell passes them on
        signal.signal(sig, lambda number, _frame: os.kill(pid, number))
    output = _Output(words)
    try:
        for piece in _pieces(read, pid):
            output.feed(piece)
    finally:
        os.close(read)
        status = _wait(pid)
        for sig, handler in ignored.items():
            signal.signal(sig, handler)
    killed = -status if status < 0 else None
    exit_status = 128 - status if status < 0 else status
    found = output.finish()
    if found is None:
        return "", None, exit_status, killed
    if isinstance(found, bytes):  # small, and no reducer reads it: as printed
        return "", found, exit_status, killed
    text, printed = _delivered(found, shell, args, output, exit_status, killed, started)
    return text, printed, exit_status, killed


class _Output:
    """The line's output, held as bytes while it is small and no reducer reads it: such
    output is shown whole and never stored, and ``agentout run`` around the runner hides
    the secrets in all it reads, so no redactor is built for it (the costliest part of a
    line). Output that may be stored (a reducer's, or past the inline threshold) goes
    into a capture that hides secrets as ``agentout run``'s does, before any is kept."""

    def __init__(self, words: tuple[str, ...]) -> None:
        self.words = words
        self.reducer: Reducer | None = None
        self.held: bytearray | None = bytearray()
        self.capture: Capture | None = None
        self.threshold = 0

    def feed(self, piece: bytes) -> None:
        if self.capture is not None:
            self.capture.feed(piece)
            return
        assert self.held is not None
        if not self.held:
            from agentout.deliver.limits import text_threshold

            self.threshold = text_threshold()
            if self.words:
                from agentout.reducers import find

                self.reducer = find(self.words)
        self.held += piece
        if self.reducer is not None or len(self.held) > self.threshold:
            self.capture = _capture()
            self.capture.feed(bytes(self.held))
            self.held = None

    def finish(self) -> Capture | bytes | None:
        """The capture to deliver, or the output itself when it is small and no reducer
        reads it (shown whole, never stored), or None when there was none."""
        if self.capture is None:
            return bytes(self.held) if self.held else None
        self.capture.close()
        return self.capture


def _pieces(fd: int, pid: int) -> Iterator[bytes]:
    """The pipe's output until it closes, or ``LINGER`` seconds after the shell exited
    (a background process the line started may hold the pipe open for good)."""
    import select
    import time

    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    exited: float | None = None
    while True:
        if exited is None and os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
            exited = time.monotonic()
        if exited is not None and time.monotonic() - exited >= LINGER:
            return
        if not poller.poll(250):
            continue
        piece = os.read(fd, 1 << 20)
        if not piece:
            return
        yield piece


def _wait(pid: int) -> int:
    """The child's status as ``subprocess`` gives it: the exit code, or minus the signal."""
    _, raw = os.waitpid(pid, 0)
    return -os.WTERMSIG(raw) if os.WIFSIGNALED(raw) else os.WEXITSTATUS(raw)


def _capture() -> Capture:
    """A capture as ``agentout run`` makes one: secrets hidden as the output arrives."""
    from agentout.deliver.limits import text_threshold
    from agentout.redact import Redactor
    from agentout.store.capture import Capture

    redactor = Redactor.from_environ()
    stream = redactor.stream() if redactor.enabled else None
    return Capture(threshold=text_threshold(), filters=(stream,) if stream else ())


def _delivered(
    capture: Capture,
    shell: str,
    args: list[str],
    output: _Output,
    status: int,
    killed: int | None,
    started: float,
) -> tuple[str, bytes | None]:
    """What ``agentout run`` would hand the agent for this output (``deliver_output``,
    with the reducer of the command the line runs), and the output as printed (its
    secrets hidden) when it is at most the inline threshold; no form when that is the
    output as printed."""
    import time

    from agentout.deliver.text import TextSettings, deliver_output

    header: dict[str, object] = {"cmd": shlex.join([shell, *args])[:200], "exit": status}
    if killed is not None:
        header["signal"] = signal.Signals(killed).name
    header["duration"] = f"{time.monotonic() - started:.2f}s"
    found = next((f.found.total for f in capture.filters if hasattr(f, "found")), 0)
    if found:
        header["secrets"] = found
    delivery = deliver_output(
        capture,
        TextSettings(output.threshold),
        argv=output.words,
        exit_status=status,
        header=header,
        reducer=output.reducer,
    )
    printed = capture.whole(output.threshold)  # None past it: the form is a cut, smaller
    return ("" if delivery.form == "whole" else delivery.text), printed


def label(runner: str, target: str | None, line: str) -> str:
    """``[agentout task check: ruff check src]``: the recipe (make's target, npm's
    script; just gives none) and the line's first line, cut to ``LABEL_CHARS``."""
    name = target if runner == "make" else os.environ.get("npm_lifecycle_event")  # noqa: SIM112 - npm spells it so
    first = line.strip().splitlines()[0] if line.strip() else ""
    if len(first) > LABEL_CHARS or "\n" in line.strip():
        first = first[:LABEL_CHARS] + "…"
    first = visible(first)
    return f"[agentout task {visible(name)}: {first}]" if name else f"[agentout task: {first}]"


def reducer_words(line: str) -> tuple[str, ...]:
    """The words of the command whose output the line prints: the one command of the
    line that is not setting the stage (``cd``, ``export``...), or nothing (the generic
    reducer) when there are several."""
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
    except ValueError:
        return ()
    segments: list[list[str]] = [[]]
    for token in tokens:
        if token and set(token) <= set("();<>|&"):
            segments.append([])
        else:
            segments[-1].append(token)
    doing = [s for s in segments if s and os.path.basename(s[0]) not in _STAGE]
    return tuple(doing[0]) if len(doing) == 1 else ()


def _test_command(line: str) -> tuple[list[str], str | None] | None:
    """``(words, directory)`` when the line is one test command with plain words,
    maybe after ``cd DIR &&``: run it as ``agentout run`` runs a test command."""
    cwd = None
    found = _CD_THEN.match(line)
    if found is not None and not os.environ.get("CDPATH"):
        folder, line = found.group(1), found.group(2)
        if folder.startswith("-") or not _PLAIN.match(folder) or not os.path.isdir(folder):
            return None
        cwd = os.path.abspath(folder)
    if not _PLAIN.match(line) or "=" in line.split(" ", 1)[0]:
        return None
    try:
        words = shlex.split(line)
    except ValueError:
        return None
    from agentout.sources.testing.programs import TEST_PROGRAMS

    if not words or not {os.path.basename(word) for word in words} & TEST_PROGRAMS:
        return None  # most lines: the test machinery is not imported
    from agentout.sources.testing.runners import detect

    return (words, cwd) if detect(words) is not None else None


def _marked(head: str, text: str, own: str) -> str:
    """The label and the delivered text, agentout's own lines in it (its markers and
    closing line; a command's line that reads like one was escaped) marked with ``own``,
    so ``agentout run`` around the runner shows them as they are."""
    out = [own + head]
    for line in text.splitlines():
        out.append(own + line if line.startswith(MARKS) else line)
    return "\n".join(out) + "\n"


def _write(data: bytes, lock: str | None) -> None:
    """The whole block in one go, holding the lock every line shell of this run shares."""
    fd = None
    if lock:
        import fcntl

        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            fd = None
    try:
        view = memoryview(data)
        while view:
            written = os.write(1, view)
            view = view[written:]
    except BrokenPipeError:
        pass
    finally:
        if fd is not None:
            os.close(fd)
