"""Claude Code's session shell: agentout's functions in it, and the calls they may reduce.

Claude Code runs each Bash command in a fresh bash that first sources the file a
``SessionStart`` hook was given (``CLAUDE_ENV_FILE``), as it sources its own ``grep``,
``find`` and ``rg`` functions. ``session_start`` writes there one shell function per
program agentout reduces (``function_names``: the programs of its reducers, test runners,
task runners, package runners and interpreters): the command string the person approves
never changes, so the client's permissions decide exactly as without agentout.

A function costs no process unless the command's stdout and stderr are one regular file:
then it starts ``agentout run --capture claude -- NAME ARGS`` (``agentout.cli.run_capture``),
which goes on only when that file is the client's own capture of a call of this session
that runs in the foreground (``capture_call``): anything else (a pipeline, ``$(…)``, a
redirect, a background call, a command a script runs, a shell that is not bash, a name
the user's shell already defines) gets the program itself, unchanged.

Which calls run in the background the shell cannot tell: the ``PreToolUse`` hook notes
every Bash call of the session (``note_call``: the command, its ``tool_use_id``, whether it
runs in the background), and the function's ``agentout run`` finds its own call by the
command its shell was started for. No note, no reduction. The hook never answers
``PreToolUse``: what the person allowed, denied or was asked stays the client's alone.
"""

from __future__ import annotations

import os

from agentout.agents._digest import sha256

TYPE_CHECKING = False  # typing is not imported at run time: every wrapped command looks
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

__all__ = [
    "CAPTURE_FLAG",
    "ENV_CALL",
    "ENV_COMMAND",
    "Call",
    "capture_call",
    "deliver",
    "delivered",
    "function_names",
    "installed",
    "note_call",
    "reached",
    "script",
    "session_start",
]

CAPTURE_FLAG = "--capture"
AGENT = "claude"
# The call a delivery in the client's capture belongs to, for the delivery (warm or here)
ENV_CALL = "AGENTOUT_CLAUDE_CALL"
ENV_COMMAND = "AGENTOUT_CLAUDE_COMMAND"
_FOLDER = "claude-calls"  # in agentout's cache: one folder a session, one file a command
_KEEP_SECONDS = 2 * 86400  # a session's notes untouched for this long are removed
_MAX_NOTE = 4096
_MAX_CMDLINE = 1 << 20
_ANCESTORS = 8  # how far up the function's shell the client's bash is looked for
# The client's own functions (its bundled ugrep and bfs), listings and searches that
# PostToolUse covers, and paths (a function's name has no slash).
_LEFT_ALONE = {
    "grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "fdfind", "ls", "tree",
}  # fmt: skip
_INTERPRETERS = ("python", "python3", "node", "ruby", "perl", "php", "deno", "bun", "bash", "sh")
_PACKAGE_RUNNERS = ("npx", "pnpx", "bunx", "uvx")
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-")


def function_names() -> tuple[str, ...]:
    """The programs that get a function, sorted: the first word of every built-in
    reducer's command, the test programs, the task runners, package runners and
    interpreters; never ``grep``, ``find``, ``rg`` (the client's own) nor a path."""
    from agentout.reducers.builtin import builtins
    from agentout.sources.tasks import RUNNERS
    from agentout.sources.testing.programs import TEST_PROGRAMS

    names = set(TEST_PROGRAMS) | set(RUNNERS) | set(_INTERPRETERS) | set(_PACKAGE_RUNNERS)
    names |= {"tox", "nox", "mocha"}
    for reducer in builtins():
        for words in _prefixes(reducer):
            if words:
                names.add(words[0])
    return tuple(
        sorted(n for n in names - _LEFT_ALONE if n and set(n) <= _NAME_CHARS and n[0] != "-")
    )


def _prefixes(reducer: Any) -> tuple[tuple[str, ...], ...]:
    found = getattr(reducer, "prefixes", None) or getattr(reducer, "match", None) or ()
    return tuple(tuple(words) for words in found)


def script(agentout: str, names: tuple[str, ...] | None = None, python: str | None = None) -> str:
    """The text ``session_start`` adds to the session's environment file: a function per
    program in ``names`` that calls ``agentout run --capture claude`` when stdout and
    stderr are one regular file and ``agentout`` is still there, else the program itself
    (``command``: never an alias or another function). bash only; nothing is printed,
    nothing exported, and a name the user's shell defines already is left as it is.
    ``python``: the interpreter the script is run by, isolated (``-I``): the command's
    ``PYTHONPATH`` (``PYTHONPATH=src pytest``, a project with its own ``agentout``
    package) is the command's, never what agentout imports."""
    import shlex
    import sys

    chosen = function_names() if names is None else names
    head = shlex.quote(agentout)
    runner = f"{shlex.quote(python or sys.executable)} -I {head}"
    # One line, ending in ";" and no newline: Claude Code puts the file's text in front of
    # each command, so a line more would shift the line numbers of its error messages
    # ("bash: line 1: x: command not found").
    return (
        'if [ -n "${BASH_VERSION-}" ]; then '
        "__agentout_run() { "
        "if [[ -f /proc/$BASHPID/fd/1 && /proc/$BASHPID/fd/1 -ef /proc/$BASHPID/fd/2"
        f' && -x {head} ]] && type -P "$1" >/dev/null 2>&1; then '
        f'{runner} run {CAPTURE_FLAG} {AGENT} -- "$@"; '
        'else command "$@"; fi; }; '
        f"for __agentout_name in {' '.join(chosen)}; do "
        'if ! declare -F -- "$__agentout_name" >/dev/null'
        ' && ! alias -- "$__agentout_name" >/dev/null 2>&1; then '
        'eval "$__agentout_name() { __agentout_run $__agentout_name \\"\\$@\\"; }"; '
        "fi; done; unset __agentout_name; fi;"
    )


def session_start(environ: Mapping[str, str], agentout: str) -> str | None:
    """Add the functions (for the programs on the session's PATH) to ``$CLAUDE_ENV_FILE``;
    None, or the one line that says why not. The file is appended to (other hooks write
    there too), never followed as a link."""
    path = environ.get("CLAUDE_ENV_FILE", "")
    if not path:
        return None  # an older client, or another event: nothing to write to
    if not os.path.isabs(path):
        return f"CLAUDE_ENV_FILE {path!r} is not an absolute path; no function added"
    text = script(agentout, installed(environ.get("PATH", ""))).encode("utf-8", "surrogateescape")
    # never follow a link, never wait on a FIFO
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}; no function added"
    try:
        import stat

        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return f"{path}: not a regular file; no function added"
        if info.st_size and os.pread(fd, 1, info.st_size - 1) != b"\n":
            text = b"\n" + text  # another hook's last line stays its own
        view = memoryview(text)
        while view:
            view = view[os.write(fd, view) :]
    except OSError as exc:
        return f"{path}: {exc.strerror or exc}; no function added"
    finally:
        os.close(fd)
    return None


def installed(path: str, names: tuple[str, ...] | None = None) -> tuple[str, ...]:
    """The names of ``names`` (default: ``function_names``) that are programs on ``path``:
    a name with no program gets no function, so bash says "command not found" as ever."""
    import shutil

    chosen = function_names() if names is None else names
    return tuple(name for name in chosen if shutil.which(name, path=path) is not None)


def agentout_script() -> str | None:
    """The ``agentout`` script of this installation (beside its Python), or None."""
    import sys

    here = sys.executable
    for folder in (os.path.dirname(here), os.path.dirname(os.path.realpath(here))):
        candidate = os.path.join(folder, "agentout")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


# -- the calls of a session --------------------------------------------------------------------


def _session_folder(session: str, base: str | None = None) -> str:
    from agentout.dirs import user_folder

    root = base if base is not None else os.path.join(user_folder("cache"), _FOLDER)
    name = sha256(session.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(root, name)


def _command_file(folder: str, command: str) -> str:
    name = sha256(command.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return os.path.join(folder, f"{name}.json")


def note_call(payload: Mapping[str, Any], base: str | None = None) -> None:
    """``PreToolUse`` of Bash: note the call (its command, ``tool_use_id``, whether it
    runs in the background) for the functions' ``agentout run``. Never raises, never
    answers: a note that cannot be written leaves the call unreduced."""
    from agentout.agents._routing import truthy

    session = payload.get("session_id")
    tool_input = payload.get("tool_input")
    if not isinstance(session, str) or not session or not isinstance(tool_input, dict):
        return
    command = tool_input.get("command")
    if not isinstance(command, str) or not command:
        return
    call = payload.get("tool_use_id")
    background = truthy(tool_input.get("run_in_background"))
    # one line: "background" or "foreground", then the call's id
    where = "background" if background else "foreground"
    note = f"{where} {call if isinstance(call, str) else ''}"
    folder = _session_folder(session, base)
    import contextlib

    with contextlib.suppress(OSError, ValueError):
        _write_note(folder, _command_file(folder, command), note.strip())


def _write_note(folder: str, path: str, note: str) -> None:
    import contextlib
    from pathlib import Path

    from agentout.dirs import private_dir
    from agentout.errors import SpillError

    try:
        private_dir(Path(folder), "the notes of Claude Code's calls")
    except SpillError as exc:
        raise OSError(str(exc)) from None
    if not os.listdir(folder):  # a new session: the old ones are looked at
        _prune(os.path.dirname(folder))
    temporary = f"{path}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(note + "\n")
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _prune(root: str) -> None:
    """Remove the notes of sessions untouched for ``_KEEP_SECONDS``."""
    import shutil
    import time

    horizon = time.time() - _KEEP_SECONDS
    try:
        found = list(os.scandir(root))
    except OSError:
        return
    for entry in found:
        try:
            if entry.is_dir(follow_symlinks=False) and entry.stat().st_mtime < horizon:
                shutil.rmtree(entry.path)
        except OSError:
            pass


class Call:
    """A foreground Bash call of this session whose output is the client's capture file."""

    def __init__(self, session: str, command: str, call: str | None, capture: str) -> None:
        self.session, self.command, self.call, self.capture = session, command, call, capture


def capture_call(
    environ: Mapping[str, str], base: str | None = None, proc: str = "/proc"
) -> Call | None:
    """The call this process's output belongs to, when that output is Claude Code's own
    capture file of a foreground call of this session (``CLAUDE_CODE_SESSION_ID``): stdout
    and stderr one regular file ``…/claude-UID/PROJECT/SESSION/tasks/ID.output``, the command
    the client's bash runs noted by ``note_call`` as not in the background. Else None:
    the program runs as it is."""
    session = environ.get("CLAUDE_CODE_SESSION_ID", "")
    if not session or "/" in session:
        return None
    try:
        out, err = os.fstat(1), os.fstat(2)
        target = os.readlink(os.path.join(proc, "self", "fd", "1"))
    except OSError:
        return None
    import stat

    if not stat.S_ISREG(out.st_mode) or (out.st_dev, out.st_ino) != (err.st_dev, err.st_ino):
        return None
    parts = target.split("/")
    if (
        len(parts) < 6
        or parts[-2] != "tasks"
        or not parts[-3]  # the session's folder: after --continue, not CLAUDE_CODE_SESSION_ID's
        or not parts[-1].endswith(".output")
        or f"claude-{os.getuid()}" not in parts[:-4]
    ):
        return None
    command = _client_command(proc)
    if command is None:
        return None
    note = _read_note(_command_file(_session_folder(session, base), command))
    if note is None or note[0] != "foreground":
        return None
    return Call(session, command, note[1] if len(note) > 1 else None, target)


def _read_note(path: str) -> list[str] | None:
    """The words of a call's note (``foreground CALL``), or None."""
    from agentout.agents._files import read_regular

    try:
        words = read_regular(path, _MAX_NOTE).decode("utf-8").split()
    except (OSError, UnicodeDecodeError):
        return None
    return words or None


def _client_command(proc: str) -> str | None:
    """The command of the Bash call this process runs in: the word after ``eval`` in the
    ``bash -c`` line Claude Code starts each call with (``… && eval 'COMMAND' < /dev/null
    && pwd -P >| …``), found in the nearest ancestor that has one."""
    pid = os.getppid()
    for _ in range(_ANCESTORS):
        if pid <= 1:
            return None
        try:
            with open(os.path.join(proc, str(pid), "cmdline"), "rb") as handle:
                argv = handle.read(_MAX_CMDLINE).split(b"\0")
            with open(os.path.join(proc, str(pid), "stat"), "rb") as handle:
                stat = handle.read().decode("utf-8", "replace")
        except OSError:
            return None
        if len(argv) >= 3 and os.path.basename(argv[0]) in (b"bash", b"sh") and argv[1] == b"-c":
            found = _evaluated(argv[2].decode("utf-8", "surrogateescape"))
            if found is not None:
                return found
        try:
            pid = int(stat.rsplit(")", 1)[1].split()[1])
        except (IndexError, ValueError):
            return None
    return None


def _evaluated(line: str) -> str | None:
    """COMMAND in Claude Code's ``… && eval 'COMMAND' < /dev/null && pwd -P >| FILE``:
    one shell word made of single-quoted parts, double-quoted parts and backslash
    escapes (how the client quotes it), read without ``shlex`` (and its ``re``)."""
    start = line.rfind(" && eval ")
    if start < 0:
        return None
    word, end = _shell_word(line, start + len(" && eval "))
    if word is None or not line.startswith(" < /dev/null", end):
        return None
    return word


def _shell_word(line: str, at: int) -> tuple[str | None, int]:
    """The shell word that starts at ``at`` and where it ends; None for one this does not
    read (an unquoted expansion, an unclosed quote)."""
    parts: list[str] = []
    i, size = at, len(line)
    while i < size and line[i] not in " \t\n;&|<>":
        char = line[i]
        if char == "'":
            close = line.find("'", i + 1)
            if close < 0:
                return None, i
            parts.append(line[i + 1 : close])
            i = close + 1
        elif char == '"':
            i += 1
            while i < size and line[i] != '"':
                if line[i] == "\\" and i + 1 < size and line[i + 1] in '"\\$`':
                    i += 1
                elif line[i] in "$`":
                    return None, i
                parts.append(line[i])
                i += 1
            if i >= size:
                return None, i
            i += 1
        elif char == "\\" and i + 1 < size:
            parts.append(line[i + 1])
            i += 2
        elif char in "$`*?[{~":
            return None, i
        else:
            parts.append(char)
            i += 1
    return ("".join(parts) if i > at else None), i


# -- what the functions delivered ----------------------------------------------------------------


def _delivered_file(session: str, text: str, base: str | None) -> str:
    # the client hands the hook the output with leading blank lines and trailing
    # whitespace trimmed: the mark is of that
    trimmed = text.rstrip().lstrip("\n").encode("utf-8", "surrogatepass")
    return os.path.join(_session_folder(session, base), f"out-{sha256(trimmed).hexdigest()[:32]}")


def deliver(session: str, text: str, base: str | None = None) -> None:
    """Note that ``text`` is the output agentout's function left in the client's capture:
    the ``PostToolUse`` hook then leaves it as it is (``delivered``)."""
    path = _delivered_file(session, text, base)
    try:
        from pathlib import Path

        from agentout.dirs import private_dir

        private_dir(Path(os.path.dirname(path)), "the notes of Claude Code's calls")
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
    except (OSError, ValueError, Exception):
        pass


def delivered(session: str, text: str, base: str | None = None) -> bool:
    """Whether agentout's function in the session's shell delivered ``text``."""
    return os.path.exists(_delivered_file(session, text, base))


def reached(command: str, names: tuple[str, ...] | None = None) -> tuple[str, ...] | None:
    """The words of the program whose output a function reduces when Claude Code runs
    ``command``, or None (``agentout discover`` replays past calls so): one command with
    a function (after ``cd DIR &&`` steps), stdout and stderr not sent elsewhere (``2>&1``
    is fine), no pipe, no expansion."""
    from agentout.agents._shell import analyse

    script = analyse(command) if len(command) <= 100_000 else None
    if script is None or not script.plain or not script.segments:
        return None
    *before, last = script.segments
    if any(op not in ("&&", ";") for op in script.operators):
        return None
    if any(not s.words or s.words[0] != "cd" for s in before) or last.redirected:
        return None
    words = last.words
    chosen = function_names() if names is None else names
    if not words or words[0] not in chosen:
        return None
    return words
