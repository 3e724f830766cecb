"""``agentout run`` without click: every shell command an agent runs pays agentout's start.

The agent hooks rewrite commands to ``agentout run -- CMD`` or ``agentout run --shell
'CMD'``, so this form is read here, with the few options such a call carries, and the
library is called as ``agentout.cli.run`` calls it. Anything else (``--help``, other
options, a mistake) returns None and click reads the line, so the messages and the help
are click's. ``tests/cli/test_quick.py`` holds the two to the same result.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing is not imported at run time: this is every command's path
if TYPE_CHECKING:
    import contextlib
    from collections.abc import Callable, Sequence
    from typing import Any

__all__ = ["OPTIONS", "Heartbeat", "deliver", "options", "parse"]

_HEARTBEAT_AFTER = 3.0  # seconds before a quiet command gets a line on the terminal

# option -> (keyword, conversion); flags take no value
OPTIONS: dict[str, tuple[str, Callable[[str], Any] | None]] = {
    "--shell": ("shell", None),
    "--no-reduce": ("no_reduce", None),
    "--keep-secrets": ("keep_secrets", None),
    "--max-tokens": ("max_tokens", int),
    "--max-chars": ("max_chars", int),
    "--inline-threshold": ("inline_threshold", int),
    "--timeout": ("timeout", float),
    "--tokenizer": ("tokenizer", str),
    "--capture": ("capture", str),
}
CAPTURES = ("claude",)  # the clients whose own capture of a command's output run can replace


def parse(args: Sequence[str]) -> dict[str, Any] | None:
    """The options and the command of ``agentout run ARGS``; None when click must read it."""
    found: dict[str, Any] = {"shell": False, "no_reduce": False, "keep_secrets": False}
    i = 0
    while i < len(args) and args[i] != "--":
        if not args[i].startswith("-"):
            break  # the command, without "--" (`run --shell 'CMD'`): click reads it so too
        name, eq, value = args[i].partition("=")
        known = OPTIONS.get(name)
        if known is None:
            return None
        keyword, convert = known
        if convert is None:
            if eq:
                return None
            found[keyword] = True
        else:
            if not eq:
                i += 1
                if i >= len(args):
                    return None
                value = args[i]
            try:
                converted = convert(value)
            except ValueError:
                return None
            if isinstance(converted, (int, float)) and (converted < 0 or converted != converted):
                return None
            if keyword == "timeout" and converted == 0:
                return None
            if keyword == "capture" and converted not in CAPTURES:
                return None
            found[keyword] = converted
        i += 1
    if i >= len(args):
        return None
    command = tuple(args[i + 1 :] if args[i] == "--" else args[i:])
    if not command:
        return None
    found["command"] = command
    return found


def options(args: Sequence[str]) -> dict[str, Any] | None:
    """``parse``, with the tokenizer ``AGENTOUT_TOKENIZER`` names when none is given."""
    found = parse(args)
    if found is not None and os.environ.get("AGENTOUT_TOKENIZER") and "tokenizer" not in found:
        found["tokenizer"] = os.environ["AGENTOUT_TOKENIZER"]
    return found


# Words a command made of nothing else is split at spaces (no parser loaded); bash's
# builtins and keywords, which only bash runs (a program of the name may differ, or
# not exist).
_PLAIN_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _./:@%+,-")
_BASH_OWN = frozenset({
    ".", ":", "[", "[[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command",
    "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo",
    "enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash",
    "help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf",
    "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift", "shopt",
    "source", "suspend", "test", "times", "trap", "true", "type", "typeset", "ulimit",
    "umask", "unalias", "unset", "wait", "time", "coproc", "function",
})  # fmt: skip


def one_command(command: Sequence[str], shell: bool) -> dict[str, Any]:
    """``--shell 'CMD'`` where CMD is one command read as the hooks read it (tree-sitter's
    bash grammar, ``agentout.agents._shell``: its redirections to /dev/null and ``2>&1``
    aside, nothing a shell would expand), so one command gives one form whatever the
    door: run as ``run -- WORDS`` runs it when nothing but a program and its words is left
    (a task runner's lines reduced, a test program's report), else still by bash, its
    output read by the command's reducer (``reduce_as``). Anything else: as it was. (A
    served run's client runs it by bash, as it was: the same output, the same form.)"""
    if not shell or len(command) != 1:
        return {}
    line = command[0]
    if line.strip() and all(char in _PLAIN_CHARS for char in line):
        words: tuple[str, ...] | None = tuple(line.split())
        simple = True
    else:
        from agentout.agents._shell import analyse

        script = analyse(line) if len(line) <= 100_000 else None
        if script is None or not script.plain or script.operators or len(script.segments) != 1:
            return {}
        words, simple = script.segments[0].words, script.simple
    if not words:
        return {}
    if simple and words[0] not in _BASH_OWN:
        return {"command": words, "shell": False}
    return {"reduce_as": words}


def deliver(
    command: tuple[str, ...],
    *,
    max_tokens: int | None = None,
    max_chars: int | None = None,
    inline_threshold: int | None = None,
    mode: str = "auto",
    shell: bool = False,
    timeout: float | None = None,
    no_reduce: bool = False,
    keep_secrets: bool = False,
    format_name: str = "raw",
    tokenizer: str | None = None,
    capture: str | None = None,
    runner: Callable[..., Any] | None = None,
    reduce_as: Sequence[str] | None = None,
) -> None:
    """Run the command, print what the agent gets, exit with the command's status. Bad
    input is one line on stderr and status 2 (``agentout.cli.run`` calls this too).
    ``runner``: what gives the output instead of running the command
    (``agentout.sources.command.run``; ``agentout.cli.run_client`` passes one).
    ``capture``: the client whose own capture of the output holds it as printed already
    (``agentout.cli.run_capture``): nothing is printed when that is what the agent gets.
    ``reduce_as``: the words whose reducer reads the output (``one_command``)."""
    if shell and reduce_as is None:
        found = one_command(command, shell)
        command = found.get("command", command)
        shell = found.get("shell", shell)
        reduce_as = found.get("reduce_as")
    from agentout.errors import AgentoutError
    from agentout.read.visible import is_terminal
    from agentout.sources.command import run as run_command

    heartbeat = Heartbeat() if is_terminal(sys.stderr) else None
    with _uploads_deferred():  # a remote store's upload finishes after the answer
        try:
            done = run_command(
                command,
                max_tokens=max_tokens,
                max_chars=max_chars,
                inline_threshold=inline_threshold,
                mode=mode,
                format=_runnable(format_name),
                tokenizer=tokenizer,
                shell=shell,
                timeout=timeout,
                reduce=not no_reduce,
                keep_secrets=keep_secrets,
                on_tick=heartbeat.tick if heartbeat else None,
                runner=runner,
                downstream=1,  # the answer's reader gone: the command stops, as in a pipe
                on_capped=_say_capped if capture is None and _piped() else None,
                reduce_as=reduce_as,
            )
        except (AgentoutError, ValueError) as exc:
            sys.stderr.write(f"agentout: {exc}\n")
            sys.exit(2)
        if heartbeat:
            heartbeat.clear()
        packed = done.delivery.packed
        text = done.delivery.text
        shown = text
        if capture is not None:
            shown = _in_capture(done, text, _reduced_inside(command, shell))
        if done.delivery.warning and not (capture is not None and not shown):
            sys.stderr.write(f"agentout: warning: {done.delivery.warning}\n")
        try:
            if capture is not None:
                sys.stdout.write(shown)  # nothing: the client's capture holds it as printed
            elif packed is not None and packed.format == "text":
                from agentout.cli._options import echo_packed

                echo_packed(packed)
            else:
                sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:
            sys.stderr.close()
        _record(command, shell, done, text, tokenizer)
        sys.exit(done.outcome.exit_status)


def _piped() -> bool:
    """Whether this answer goes to a pipe or a socket, whose reader may wait for it."""
    from agentout.process import pipe_or_socket

    return pipe_or_socket(1) is not None


def _say_capped(line: str) -> None:
    """Said at once, to a pipe, when the output passes the store's cap while the command
    still prints (``yes``): the reader gets its first line now, so ``agentout run -- yes |
    head -1`` ends as ``yes | head -1`` does (head goes, and the command is stopped as a
    broken pipe stops it). A terminal or a file waits for the answer, as ever."""
    try:
        sys.stdout.write(line)
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):  # the reader is gone, or stdout closed
        pass


def _in_capture(done: Any, text: str, tasks: bool = False) -> str:
    """What replaces the output in the client's own capture of it (``agentout run
    --capture claude``): nothing when the agent is best served by the output as printed,
    one line when an earlier call of the session printed the same
    (``agentout.agents.claude_bash.repeated``), else ``text``. A cut whose output could not
    be stored would lose lines: the capture then keeps the output as printed. What the
    capture then holds is noted for the ``PostToolUse`` hook, which leaves it as it is.
    ``tasks``: a task runner's recipe lines were each reduced, so what the capture holds is
    not as printed (it has agentout's own marks in it): it is always replaced."""
    delivery = done.delivery
    as_printed = delivery.form == "whole" and not delivery.secrets and not tasks
    if delivery.form == "cut" and delivery.ref is None and not tasks:
        as_printed = True  # nowhere to keep what a cut leaves out: the capture keeps it all
    raw = delivery.raw if isinstance(delivery.raw, str) else None
    if not as_printed and not delivery.secrets and not tasks:  # never more than the output
        if len(text.encode("utf-8", "surrogateescape")) >= delivery.raw_bytes > 0:
            as_printed = True
        elif raw is not None:
            as_printed = not _smaller(text, raw, done)
    session = os.environ.get("CLAUDE_CODE_SESSION_ID", "")
    if not session:
        return "" if as_printed else text
    from agentout.agents import claude_shell

    digest = _digest(raw, delivery.ref)
    if digest is not None:
        from agentout.agents.claude_bash import repeated

        line = repeated(
            session,
            digest,
            text,
            raw.encode("utf-8", "surrogateescape") if raw is not None else None,
            delivery.ref,
            call=os.environ.get(claude_shell.ENV_CALL) or None,
            command=os.environ.get(claude_shell.ENV_COMMAND, ""),
        )
        if line is not None:
            text, as_printed = line, False
    claude_shell.deliver(session, raw if as_printed and raw is not None else text)
    return "" if as_printed else text


def _smaller(text: str, raw: str, done: Any) -> bool:
    """Whether ``text`` costs fewer characters and tokens than ``raw``."""
    if len(text) >= len(raw.rstrip("\n")):
        return False
    from agentout.tokens import count_until, get_tokenizer

    counter = get_tokenizer(None)
    return count_until(text, counter.count(raw) - 1, counter) is not None


def _digest(raw: str | None, ref: Any) -> str | None:
    """SHA-256 of the output as kept: ``raw`` when it was not stored, else the store's copy."""
    from agentout.agents._digest import sha256

    hasher = sha256()
    if raw is not None:
        hasher.update(raw.encode("utf-8", "surrogateescape"))
        return str(hasher.hexdigest())
    if ref is None:
        return None
    try:
        with open(ref.path, "rb") as kept:
            while piece := kept.read(1 << 20):
                hasher.update(piece)
    except (OSError, AttributeError, TypeError):
        return None
    return str(hasher.hexdigest())


def _uploads_deferred() -> contextlib.AbstractContextManager[None]:
    """With a store set (``$AGENTOUT_STORE``, which ``--store`` sets too), an object
    store's upload finishes after the answer is printed (agentout.store.spill.deferred_uploads);
    without one, nothing is imported for it."""
    import contextlib

    if not os.environ.get("AGENTOUT_STORE", "").strip():
        return contextlib.nullcontext()
    from agentout.store.spill import deferred_uploads

    return deferred_uploads()


def _runnable(format_name: str) -> Any:
    """Text whose markers name the agentout that ran, when it was started by a path (as
    the hooks' rewrites start it) and ``agentout`` on PATH is not that one: the agent's
    shell can then run what they say (``agentout.agents._markers``)."""
    script = sys.argv[0] if sys.argv else ""
    if format_name != "raw" or os.path.basename(script) != "agentout":
        return format_name
    from agentout.agents._markers import show_command

    command = show_command()
    if command == "agentout":
        return format_name
    from agentout.formats.raw import Pager, RawFormat

    return RawFormat(Pager.for_command(command))


def _record(
    command: Sequence[str], shell: bool, done: Any, text: str, tokenizer: str | None
) -> None:
    """One row in the savings ledger (``agentout.ledger.book``), counted after we answered:
    ``text``, what was printed."""
    from agentout.ledger import book as ledger

    if not ledger.enabled():
        return
    delivery, outcome = done.delivery, done.outcome
    raw_path = str(delivery.ref.path) if delivery.ref is not None else None
    raw = None
    if raw_path is None and not _reduced_inside(command, shell):
        raw = delivery.raw  # as captured, when not stored: given whole or reduced complete
    from agentout.deliver.limits import client_limit

    ledger.record_later(
        tool="run",
        command=command[0] if shell else " ".join(command),
        delivered=text,
        raw=raw,
        raw_path=raw_path,
        tokenizer=tokenizer,
        duration=outcome.duration,
        exit_status=outcome.exit_status,
        secrets=delivery.secrets,
        limit=client_limit(),  # what the agent's client would have shown, by its limit
    )


def _reduced_inside(command: Sequence[str], shell: bool) -> bool:
    """Whether a task runner's recipe lines were each reduced by agentout (make, just,
    npm...): what was printed whole is then not the raw output, whose size is not known
    here, so the ledger says so (None) rather than count the reduced text as raw."""
    if shell or not command:
        return False
    from agentout.sources.tasks import RUNNERS, enabled

    return os.path.basename(command[0]) in RUNNERS and enabled()


class Heartbeat:
    """One line on the terminal while a command runs longer than a few seconds: what
    ``agentout run`` and ``agentout test`` show a person at a terminal (stderr), never
    the agent (a pipe)."""

    def __init__(self) -> None:
        self.shown = False

    def tick(self, seconds: float, lines: int) -> None:
        if seconds >= _HEARTBEAT_AFTER:
            sys.stderr.write(f"\r\x1b[Kagentout: running {seconds:.0f}s, {lines:,} lines so far")
            sys.stderr.flush()
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
