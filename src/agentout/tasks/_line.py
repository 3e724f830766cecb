"""One recipe line run and reduced: the part of the line shell that imports agentout.

The line runs as the runner would have run it: ``SHELL FLAGS... -c LINE``, through
``agentout.sources.command.run`` with the reducer of the command the line runs. A line
that is one test command with plain words (``pytest -q tests``, or ``cd DIR &&`` such a
command) is run as ``agentout run`` runs a test command, for the test report.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import sys

from agentout.visible import MARKS, visible

__all__ = ["label", "reducer_words", "run_line"]

LABEL_CHARS = 100
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
) -> None:
    """Run the line, print its label and its reduced output, exit as the shell did."""
    from agentout.sources.command import run

    line = args[at]
    tests = _test_command(line)
    if tests is not None:
        words, cwd = tests
        done = run(words, cwd=cwd)
    else:
        done = run((shell, *args), reduce_as=reducer_words(line))
    text = done.delivery.text
    if text.strip() or done.outcome.exit_status:
        _write(_marked(label(runner, target, line), text, own or ""), lock)
    if done.outcome.signal is not None:
        sys.stdout.flush()
        signal.signal(done.outcome.signal, signal.SIG_DFL)
        os.kill(os.getpid(), done.outcome.signal)
    sys.exit(done.outcome.exit_status)


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
    if not words:
        return None
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


def _write(text: str, lock: str | None) -> None:
    """The whole block in one go, holding the lock every line shell of this run shares."""
    data = text.encode("utf-8", errors="replace")
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
