"""Running a command, and handing its output to the agent: what ``agentout run`` does.

``run_command`` runs a process with stdout and stderr merged in order through one pipe,
inheriting the environment, the working directory and stdin, forwarding SIGINT, SIGTERM
and SIGHUP, and returning the exit status a shell would (127 not found, 126 not
executable, 128+N killed by signal N). ``LogSink`` feeds the output, as it streams, both
to the spill store (complete, byte for byte) and to a ``LogDigest`` (the lines that
matter); ``run`` puts the two together and delivers inline or as a file reference.
"""

from __future__ import annotations

import shlex
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from agentout.deliver import (
    Delivery,
    PackSettings,
    Spool,
    check_mode,
    finish,
    resolve_threshold,
)
from agentout.formats import Format
from agentout.pack import Packed
from agentout.process import CommandOutcome
from agentout.records import Result
from agentout.sources.log import LogDigest
from agentout.spill import SpillRef, SpillStore
from agentout.tokens import Tokenizer
from agentout.truncate import clip

if TYPE_CHECKING:
    from agentout.dual import ToolResult

__all__ = ["CommandOutcome", "CommandRun", "LogSink", "run", "run_command"]

CMD_CHARS = 200  # the header is always shown: a long inline script is cut there


def run_command(argv: Sequence[str], on_output: Callable[[bytes], None]) -> CommandOutcome:
    """Run ``argv`` in its own process group, calling ``on_output`` with each chunk of its
    merged output, in order (``agentout.process.run``)."""
    from agentout import process

    return process.run(argv, on_output)


# -- delivering a log, and running a command ------------------------------------------------


class LogSink:
    """Feed a log's bytes as they come; ``deliver`` packs what matters, the rest spilled."""

    def __init__(
        self,
        *,
        mode: str = "auto",
        inline_threshold: int | None = None,
        store: SpillStore | None = None,
        kind: str = "log",
    ) -> None:
        self.mode = check_mode(mode)
        self.threshold = resolve_threshold(inline_threshold)
        self.spool = Spool(
            threshold=self.threshold, mode=self.mode, kind=kind, suffix=".log", store=store
        )
        self.digest = LogDigest(keep_all=self.mode == "inline")

    def feed(self, chunk: bytes) -> None:
        self.spool.write(chunk)
        self.digest.feed(chunk)

    def deliver(
        self,
        header: Mapping[str, Any] | None = None,
        *,
        max_tokens: int | None = None,
        max_chars: int | None = None,
        format: str | Format = "records",
        tokenizer: str | Tokenizer | None = None,
    ) -> Delivery:
        digest = self.digest.finish()
        settings = PackSettings(max_tokens, max_chars, format, tokenizer)
        spool = self.spool

        def inline(limited: bool) -> Packed | None:
            head = {"mode": "inline", **(header or {}), "warning": spool.warning}
            if limited and spool.failed and settings.limited:
                # nothing else is kept: the lines that matter most, within the budget
                result = digest.result(head, digest.summary())
                return settings.pack(result, limited=True, order=digest.priority(digest.kept()))
            if limited and not digest.complete:  # cleaned or folded: keep the bytes too
                return None
            shown = digest
            if not digest.lines.complete:  # the store failed on a long log: every line
                shown = LogDigest(keep_all=True)
                shown.feed(bytes(spool.memory))
                shown.finish()
            return settings.pack(shown.result(head, shown.summary()), limited=limited)

        def reference(ref: SpillRef, head: dict[str, Any]) -> tuple[Result, list[int]]:
            footer = {**digest.summary(), "more": f"agentout show {ref.ref} --lines 1:200"}
            return digest.result(head, footer), digest.priority(digest.kept())

        reference_settings = settings.for_reference(self.threshold)
        return finish(spool, self.mode, inline, reference_settings, header, reference)


@dataclass(frozen=True)
class CommandRun:
    """A finished ``run``: how the command ended, and what the agent is handed."""

    outcome: CommandOutcome
    delivery: Delivery

    def tool_result(self, *, verbose: bool | None = None) -> ToolResult:
        """For both audiences: the delivered text for the model (exactly: its header has
        the command, clipped, and how it ended), a summary for the person."""
        from agentout.dual import ToolResult

        done = self.outcome
        error = done.error or (f"exit status {done.exit_status}" if done.exit_status else None)
        meta = {"exit": done.exit_status, "duration": f"{done.duration:.2f}s"}
        name = clip(shlex.join(done.argv), CMD_CHARS)
        return ToolResult.from_delivery(name, self.delivery, meta, error, verbose=verbose)


def run(
    argv: Sequence[str],
    *,
    max_tokens: int | None = None,
    max_chars: int | None = None,
    inline_threshold: int | None = None,
    mode: str = "auto",
    format: str | Format = "records",
    tokenizer: str | Tokenizer | None = None,
    store: SpillStore | None = None,
) -> CommandRun:
    """Run ``argv``; its complete output is spilled, the lines that matter delivered."""
    sink = LogSink(mode=mode, inline_threshold=inline_threshold, store=store, kind="run")
    outcome = run_command(argv, sink.feed)
    header: dict[str, Any] = {"cmd": clip(shlex.join(outcome.argv), CMD_CHARS)}
    header["exit"] = outcome.exit_status
    if outcome.signal is not None:
        header["signal"] = _signal_name(outcome.signal)
    if outcome.error is not None:
        header["error"] = outcome.error
    header["duration"] = f"{outcome.duration:.2f}s"
    delivery = sink.deliver(
        header, max_tokens=max_tokens, max_chars=max_chars, format=format, tokenizer=tokenizer
    )
    return CommandRun(outcome, delivery)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)
