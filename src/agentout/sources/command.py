"""Running a command, and handing its output to the agent: what ``agentout run`` does.

``run`` starts the command in its own process group (``agentout.process``: stdout and
stderr merged in order through one pipe, the environment, directory and stdin
inherited, signals forwarded to the group, the exit status a shell would report), drains
its output into a ``Capture`` at pipe speed (memory while small, then the spill store),
and hands the result to ``deliver_output``: as printed when it fits, the command's
reducer's compact form, or the lines that matter within the budget, the rest stored.

"""

from __future__ import annotations

import os
import shlex
import signal
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from agentout.deliver.limits import failure_threshold
from agentout.deliver.text import TextDelivery, TextSettings, deliver_output, text_threshold
from agentout.frozen import Frozen
from agentout.process import CommandOutcome
from agentout.sources.testing.programs import TEST_PROGRAMS
from agentout.store.capture import Capture, OutputFilter, check_mode

if TYPE_CHECKING:
    from agentout.deliver.dual import ToolResult
    from agentout.formats import Format
    from agentout.redact import Redactor
    from agentout.reducers import Reducer
    from agentout.sources.tasks._plans import Prepared
    from agentout.store.spill import SpillStore
    from agentout.tokens import Tokenizer

__all__ = ["CommandOutcome", "CommandRun", "run", "run_command"]

CMD_CHARS = 200  # the header is always shown: a long inline script is cut there


def run_command(argv: Sequence[str], on_output: Callable[[bytes], None]) -> CommandOutcome:
    """Run ``argv`` in its own process group, calling ``on_output`` with each chunk of its
    merged output, in order (``agentout.process.run``)."""
    from agentout import process

    return process.run(argv, on_output)


# -- delivering a log, and running a command ------------------------------------------------


class CommandRun(Frozen):
    """A finished ``run``: how the command ended, and what the agent is handed."""

    outcome: CommandOutcome
    delivery: TextDelivery

    def __init__(self, outcome: CommandOutcome, delivery: TextDelivery) -> None:
        self._set(outcome=outcome, delivery=delivery)

    def tool_result(self, *, verbose: bool | None = None) -> ToolResult:
        """For both audiences: the delivered text for the model exactly (its closing line
        says how the command ended), a summary for the person."""
        from agentout.deliver.dual import ToolResult, format_for_user, verbose_from_env

        done, delivery = self.outcome, self.delivery
        error = done.error or (f"exit status {done.exit_status}" if done.exit_status else None)
        meta: dict[str, Any] = {"exit": done.exit_status, "duration": f"{done.duration:.2f}s"}
        meta.update(form=delivery.form, lines=delivery.raw_lines, bytes=delivery.raw_bytes)
        if delivery.tokens is not None:
            meta["tokens"] = delivery.tokens
        if delivery.ref is not None:
            meta["file"] = delivery.ref.location
        if delivery.warning:
            meta["warning"] = delivery.warning
        name = _clipped(shlex.join(done.argv))
        as_content = verbose_from_env() if verbose is None else verbose
        display = (
            delivery.text
            if as_content
            else format_for_user(name, delivery.text, meta, error, verbose=False)
        )
        return ToolResult(content=delivery.text, display=display, metadata=meta, error=error)


def run(
    argv: Sequence[str],
    *,
    max_tokens: int | None = None,
    max_chars: int | None = None,
    inline_threshold: int | None = None,
    mode: str = "auto",
    format: str | Format = "raw",
    tokenizer: str | Tokenizer | None = None,
    store: SpillStore | None = None,
    shell: bool = False,
    timeout: float | None = None,
    reduce: bool = True,
    on_tick: Callable[[float, int], None] | None = None,
    redact: bool | None = None,
    keep_secrets: bool = False,
    cwd: str | os.PathLike[str] | None = None,
    stdin: int | None = None,
    cancel: threading.Event | None = None,
    reduce_as: Sequence[str] | None = None,
    runner: Callable[..., CommandOutcome] | None = None,
    downstream: int | None = None,
    on_capped: Callable[[str], None] | None = None,
) -> CommandRun:
    """Run ``argv`` (or, with ``shell``, the one string in it through the user's shell):
    its output is captured whole (stored when large), then delivered as
    ``deliver_output`` says. ``on_tick(seconds, lines)`` is called while it runs.

    Secrets are hidden as the output arrives (``agentout.redact``; ``redact`` None:
    unless ``AGENTOUT_REDACT=0``), so neither the agent nor the store sees them;
    ``keep_secrets`` keeps them in the store (the agent still gets them hidden).
    ``cwd``, ``stdin`` and ``cancel`` go to ``agentout.process.run`` (the MCP server runs
    commands in its root, never on its own stdin, and stops them when a call is cancelled).

    ``reduce_as``: the words whose reducer reads the output, when they are not ``argv``'s
    (a recipe line run by its shell). A task runner (``make``, ``just``, ``npm run``) is
    told to run each recipe line through agentout (``agentout.sources.tasks``): the lines come
    reduced and labelled, and the whole is delivered as printed, or cut to the budget.

    ``runner``: what gives the command's output and outcome, called as
    ``agentout.process.run`` is (the default). ``agentout run`` served warm passes one
    that hands over output its client has already captured (``agentout.cli.run_client``):
    the command then is not run here, so neither a test program's reports nor a task
    runner's recipe lines are read (its client serves no such command).

    ``downstream``: where the answer goes (``agentout run``'s stdout): should its reader
    go away while the command runs, the command is stopped as a broken pipe would stop
    it (``agentout.process.run``).

    ``on_capped(line)``: called once, while the command still prints, when its output
    passes the store's cap, with the line that says so (``agentout.store.cap``), to be
    printed at once; the delivery's budget then leaves room for it."""
    from agentout import process
    from agentout.reducers import find

    runs = process.run if runner is None else runner
    if shell:
        if len(argv) != 1:
            raise ValueError("--shell takes the command line as one argument")
        argv = process.shell_argv(argv[0])
    elif reduce and _is_raw(format) and runner is None:
        tested = _tests(argv, max_tokens, max_chars, tokenizer, _redactor(redact), cwd)
        if tested is not None:
            return tested
    own_way = reduce and not shell and _is_raw(format) and runner is None
    tasks = _tasks(argv, cwd) if own_way else None
    check_mode(mode)
    threshold = text_threshold(inline_threshold)
    redactor = _redactor(redact)
    stream = redactor.stream() if redactor is not None else None
    filters: tuple[OutputFilter, ...] = (stream,) if stream and not keep_secrets else ()
    capture = Capture(
        threshold=threshold,
        store=store,
        keep_in_memory=mode == "inline",
        filters=filters,
    )
    said: list[str] = []  # the line said when the output passed the store's cap
    if on_capped is not None:
        from agentout.store.cap import passed_note

        def passed(cap: int) -> None:
            said.append(passed_note(cap))
            on_capped(said[0])

        capture.on_capped = passed
    if mode == "file":
        capture.spill()
    tick = None if on_tick is None else (lambda seconds: on_tick(seconds, capture.newlines))
    try:
        outcome = runs(
            argv if tasks is None else tasks.argv,
            capture.feed,
            cwd=cwd,
            env=None if tasks is None or store is None else _stored_in(store),
            stdin=stdin,
            timeout=timeout,
            cancel=cancel,
            on_tick=tick,
            **({} if downstream is None else {"downstream": downstream}),
        )
    finally:
        if tasks is not None:
            tasks.close()
    capture.close()
    header: dict[str, Any] = {"cmd": _clipped(shlex.join(argv))}
    header["exit"] = outcome.exit_status
    if outcome.signal is not None:
        header["signal"] = _signal_name(outcome.signal)
    if outcome.error is not None:
        header["error"] = outcome.error
    header["duration"] = f"{outcome.duration:.2f}s"
    if outcome.held_open is not None:  # what came after was not read: said, not hidden
        header["held_open"] = f"{outcome.held_open:g}s"
    if stream is not None and stream.found.total:
        header["secrets"] = stream.found.total
    reducer: Reducer | None = None
    if tasks is not None:
        from agentout.sources.tasks._blocks import TaskBlocks

        reducer = TaskBlocks()
    elif (reduce and outcome.error is None) or outcome.timed_out:
        reducer = find(argv if reduce_as is None else reduce_as)
    if outcome.exit_status != 0:
        threshold = failure_threshold(threshold, inline_threshold)
    if mode == "inline":
        threshold = max(threshold, capture.size)
    own = None if tasks is None else tasks.own
    if said:  # printed already: the budget is for both
        max_tokens, max_chars = _less(max_tokens, max_chars, said[0], tokenizer)
    settings = TextSettings(threshold, max_tokens, max_chars, format, tokenizer, own)
    delivery = deliver_output(
        capture,
        settings,
        argv=argv if reduce_as is None else reduce_as,
        exit_status=outcome.exit_status,
        header=header,
        reducer=reducer,
        redactor=redactor if keep_secrets else None,
    )
    return CommandRun(outcome, delivery)


def _less(
    max_tokens: int | None, max_chars: int | None, said: str, tokenizer: str | Tokenizer | None
) -> tuple[int | None, int | None]:
    """The budgets left once ``said`` is printed (at least 1 each)."""
    if max_tokens is not None:
        from agentout.tokens import get_tokenizer

        max_tokens = max(1, max_tokens - get_tokenizer(tokenizer).count(said))
    if max_chars is not None:
        max_chars = max(1, max_chars - len(said))
    return max_tokens, max_chars


_BUILD_TOOLS = {"mvn", "mvnw", "gradle", "gradlew"}
_TEST_GOALS = {"test", "verify", "check", "integration-test"}
# Options that list tests rather than run them: the list is the output, read as text.
_LISTING = {"--collect-only", "--co", "--list", "--listTests", "--list-tests"}


def _tests(
    argv: Sequence[str],
    max_tokens: int | None,
    max_chars: int | None,
    tokenizer: str | Tokenizer | None,
    redactor: Redactor | None,
    cwd: str | os.PathLike[str] | None = None,
) -> CommandRun | None:
    """A test command (pytest, jest, vitest, go test, cargo test, ...) run as ``agentout
    test -- CMD`` runs it: its machine-readable results read into the agent test report
    (every failing test named, each cause once), not its text; secrets in it hidden."""
    names = {os.path.basename(word).lower() for word in argv}
    if not names & TEST_PROGRAMS:
        return None  # most commands: nothing of the test machinery is imported
    if _LISTING & set(argv):
        return None  # pytest --collect-only, cargo test -- --list: ids to read, no run
    if names & _BUILD_TOOLS and not names & _TEST_GOALS:
        return None  # mvn compile, gradle build: a build, read by the build reducer
    from agentout.sources.testing.runners import RunnerError, detect, run_tests

    runner = detect(list(argv))
    if runner is None:
        return None
    try:
        done = run_tests(
            runner,
            max_tokens=max_tokens if max_tokens is not None else 5000,
            max_chars=max_chars,
            tokenizer=tokenizer if isinstance(tokenizer, str) or tokenizer is None else None,
            cwd=cwd,
        )
    except RunnerError:
        return None  # it cannot start: run it as any command, which says why
    seconds = done.run.duration or 0.0
    outcome = CommandOutcome(tuple(done.argv), done.exit_status, seconds)
    text, printed, hidden = done.text, done.printed, 0
    if redactor is not None:
        text, found = redactor.redact_text(done.text)
        hidden = found.total
        if printed is not None:
            printed, found = redactor.redact_text(printed)
            hidden = max(hidden, found.total)
    name = f"tests/{done.runner}"
    said = printed if printed and printed.strip() else None
    if done.exit_status == 0 and said is not None and _fewer_tokens(said, text, tokenizer):
        # a passing run the runner said in fewer words: what it printed, never more
        whole = TextDelivery(said, "whole", reducer=name, secrets=hidden, raw=said)
        return CommandRun(outcome, whole)
    delivery = TextDelivery(text, "reduced", reducer=name, secrets=hidden, raw=printed)
    return CommandRun(outcome, delivery)


def _fewer_tokens(printed: str, report: str, tokenizer: str | Tokenizer | None) -> bool:
    """Whether the runner's own output costs no more than the report (the report's
    tokenizer is loaded already: packing it counted)."""
    from agentout.tokens import count_until, get_tokenizer

    counter = get_tokenizer(tokenizer)
    return count_until(printed, counter.count(report), counter) is not None


def _tasks(argv: Sequence[str], cwd: str | os.PathLike[str] | None) -> Prepared | None:
    """The task runner told to run its recipe lines through agentout, if it is one."""
    from agentout.sources.tasks import RUNNERS

    if not argv or os.path.basename(argv[0]) not in RUNNERS:
        return None  # most commands: nothing more is imported
    from agentout.sources.tasks import prepare

    return prepare(argv, None if cwd is None else os.fspath(cwd))


def _stored_in(store: SpillStore) -> dict[str, str]:
    """The environment for a runner whose line shells must keep what they store in
    ``store`` (an MCP server's own, which ``agentout show`` there reads), not the user's."""
    return {**os.environ, "AGENTOUT_SPILL_DIR": str(store.root)}


def _redactor(redact: bool | None) -> Redactor | None:
    """The environment's redactor, unless turned off (here, or ``AGENTOUT_REDACT=0``)."""
    if redact is False:
        return None
    from agentout.redact import Redactor

    found = Redactor.from_environ(enabled=redact)
    return found if found.enabled else None


def _clipped(text: str) -> str:
    return (
        text if len(text) <= CMD_CHARS else f"{text[:CMD_CHARS]}… (+{len(text) - CMD_CHARS} chars)"
    )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _is_raw(format: str | Format) -> bool:
    """Whether output goes as text (``raw``, by name or as a ``RawFormat`` with its pager)."""
    return (format if isinstance(format, str) else format.name) == "raw"
