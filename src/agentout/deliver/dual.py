"""Two audiences for one result: the model's content and the person's display.

As in ALEX: ``content`` is what the model reasons with (complete within its
budget: already packed), ``display`` is what the person watching reads (a count line and a
short preview), ``metadata`` holds counts, sizes and timings, ``error`` says what failed.
``AGENTOUT_VERBOSE=1`` makes the display equal the content, for debugging.

``Progress`` reports long work to the person: a rich progress bar on a terminal when one
task runs at a time; in a pipe, or with several tasks at once, one event per line and
never a carriage return, so concurrent writers cannot garble each other's lines.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO

from agentout.read.visible import is_terminal

if TYPE_CHECKING:
    from agentout.deliver.hybrid import Delivery

__all__ = ["ENV_VERBOSE", "Progress", "ToolResult", "format_for_llm", "format_for_user"]

ENV_VERBOSE = "AGENTOUT_VERBOSE"
PREVIEW_LINES = 5
PREVIEW_CHARS = 500
_LINE_CHARS = 120


def verbose_from_env() -> bool:
    return os.environ.get(ENV_VERBOSE, "").strip().lower() in ("1", "true", "yes", "on")


def format_for_llm(
    tool_name: str, result: str, metadata: Mapping[str, Any] | None = None, error: str | None = None
) -> str:
    """The model's content: the result whole (it is packed already), the error first.

    Progress and timings stay out unless they are in ``result``: they are the person's.
    """
    if error:
        return f"{tool_name}: error: {error}\n{result}"
    return result


def format_for_user(
    tool_name: str,
    result: str,
    metadata: Mapping[str, Any] | None = None,
    error: str | None = None,
    *,
    verbose: bool | None = None,
) -> str:
    """The person's display: one line of counts, then a short preview of the result.

    With ``verbose`` (default: ``$AGENTOUT_VERBOSE``) it is exactly the model's content.
    """
    if verbose_from_env() if verbose is None else verbose:
        return format_for_llm(tool_name, result, metadata, error)
    facts = [f"{key} {value}" for key, value in (metadata or {}).items() if _scalar(value)]
    head = f"{'✗' if error else '✓'} {tool_name}" + (": " + ", ".join(facts) if facts else "")
    lines = [head]
    if error:
        lines.append(f"   error: {error}")
    body = result.splitlines()
    budget, shown = PREVIEW_CHARS, 0
    for line in body[:PREVIEW_LINES]:
        clipped = line if len(line) <= _LINE_CHARS else line[: _LINE_CHARS - 1] + "…"
        if len(clipped) > budget:
            break
        budget -= len(clipped)
        shown += 1
        lines.append("   " + clipped)
    hidden = len(body) - shown
    if hidden:
        lines.append(f"   … {hidden} more lines")
    return "\n".join(lines) + "\n"


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float, bool)) and value != ""


@dataclass(frozen=True)
class ToolResult:
    """One tool call's result, for both audiences."""

    content: str
    display: str
    metadata: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None

    @classmethod
    def of(
        cls,
        tool_name: str,
        result: str,
        metadata: Mapping[str, Any] | None = None,
        error: str | None = None,
        *,
        verbose: bool | None = None,
    ) -> ToolResult:
        meta = dict(metadata or {})
        return cls(
            content=format_for_llm(tool_name, result, meta, error),
            display=format_for_user(tool_name, result, meta, error, verbose=verbose),
            metadata=meta,
            error=error,
        )

    @classmethod
    def from_delivery(
        cls,
        tool_name: str,
        delivery: Delivery,
        metadata: Mapping[str, Any] | None = None,
        error: str | None = None,
        *,
        verbose: bool | None = None,
    ) -> ToolResult:
        """The delivered text for the model, exactly as packed (so within its budget: an
        ``error`` is the person's, shown in the display; what the model must know of it
        belongs in the delivery's header); its mode, counts and file for the person."""
        stats = delivery.packed.stats
        meta: dict[str, Any] = dict(metadata or {})
        meta.update(mode=delivery.mode, shown=stats.included, omitted=stats.omitted)
        meta["tokens"] = stats.tokens
        if delivery.ref is not None:
            meta.update(file=delivery.ref.location, bytes=delivery.ref.size)
            meta["lines"] = delivery.ref.lines
        if delivery.warning:
            meta["warning"] = delivery.warning
        as_content = verbose_from_env() if verbose is None else verbose
        display = (
            delivery.text
            if as_content
            else format_for_user(tool_name, delivery.text, meta, error, verbose=False)
        )
        return cls(content=delivery.text, display=display, metadata=meta, error=error)


class Progress:
    """Progress of ``total`` tasks for the person, on ``stream`` (stderr by default).

    ``live`` (default: the stream is a terminal and ``parallel`` is 1) draws a rich bar;
    otherwise every event is one whole line, written under a lock. Thread-safe.
    """

    def __init__(
        self,
        label: str,
        total: int | None = None,
        *,
        stream: TextIO | None = None,
        parallel: int = 1,
        live: bool | None = None,
    ) -> None:
        self.label, self.total, self.parallel = label, total, parallel
        self.stream = stream if stream is not None else sys.stderr
        if live is None:
            live = parallel == 1 and is_terminal(self.stream)
        self.live = live
        self.done = self.failed = 0
        self._lock = threading.Lock()
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> Progress:
        if self.live:
            from rich.console import Console
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(console=Console(file=self.stream), transient=False)
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total)
        else:
            of = f" {self.total} tasks" if self.total is not None else ""
            most = f" (max {self.parallel} parallel)" if self.parallel > 1 else ""
            self._line(f"{self.label}: running{of}{most}")
        return self

    def advance(self, name: str, *, ok: bool = True, detail: str = "") -> None:
        """One task finished: ``name``, whether it succeeded, and a short ``detail``."""
        with self._lock:
            self.done += 1
            self.failed += 0 if ok else 1
            if self._bar is not None:
                self._bar.update(self._task, advance=1, description=f"{self.label}: {name}")
                return
            of = f"/{self.total}" if self.total is not None else ""
            tail = f" | {detail}" if detail else ""
            self._line(f"   {'✓' if ok else '✗'} [{self.done}{of}] {name}{tail}", locked=True)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        of = f"/{self.total}" if self.total is not None else ""
        self._line(f"   ━━━ Completed: {self.done - self.failed}{of} ok, {self.failed} failed")

    def _line(self, text: str, *, locked: bool = False) -> None:
        if not locked:
            with self._lock:
                self._line(text, locked=True)
            return
        self.stream.write(text.replace("\r", " ") + "\n")
        self.stream.flush()
