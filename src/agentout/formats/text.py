"""Text for people: a counts line, then each record on one line or as a block.

    agentout · 3 of 100 records · 97 omitted · 83 tokens (o200k_base)

    #1  id: 1 · name: Ada
    #2  id: 2 · name: Bob

    #3
      id    3
      note  a value too long for one line wraps here, under its key, at
            the width, and goes on

``render`` gives the plain text (what pack counts and an agent reads); ``styled`` gives
the same characters with rich's styles added, for a terminal. Whether to style, and the
width to wrap at, come from the constructor or else from stdout as rich sees it:
``TextFormat(color=None)`` styles when stdout is a terminal (or ``FORCE_COLOR`` is set),
never for ``TERM=dumb``, and drops colours but keeps bold under ``NO_COLOR``; the width
is the terminal's when stdout is a terminal, else 100, so piped output is the same
bytes everywhere.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from io import StringIO
from typing import TYPE_CHECKING, Any

from agentout.formats._json import UNSAFE
from agentout.read.visible import escape_match, is_terminal
from agentout.records import Document, Record, Stats, View, is_empty
from agentout.records.values import Cut, json_safe

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

__all__ = ["DEFAULT_WIDTH", "FORMAT", "TextFormat"]

DEFAULT_WIDTH = 100
_MAX_KEY_CELLS = 24
_MIN_VALUE_CELLS = 20
_MAX_COMPACT_LINES = 2
_HANG = "    "  # indent of a one-line record's wrapped second line
# What no format writes raw, but for the line breaks the layout shows as such.
_CONTROL = re.compile(f"[{UNSAFE}]".replace("\x00-\x1f", "\x00-\x09\x0b-\x1f"))

_TITLE, _KEY, _DIM, _WARN, _ALERT = "bold", "cyan", "dim", "yellow", "bold red"


def _shown(value: Any) -> str:
    """A value as a person reads it; control characters (ANSI escapes), bidi controls
    and odd line breaks made visible as ``\\u001b``; a cut says how much it left out."""
    if isinstance(value, Cut):
        text = f"{value.kept}… (+{value.more} chars)"
    elif isinstance(value, str):
        text = value
    else:
        text = json.dumps(json_safe(value), ensure_ascii=False, default=str)
    text = text.replace("\r\n", "\n").replace("\t", "\\t")
    return _CONTROL.sub(escape_match, text)


def _shown_key(key: Any) -> str:
    """A key stays on its line: newlines are shown escaped too."""
    return _shown(str(key)).replace("\n", "\\n")


@cache
def _measuring_console() -> Console:
    """The console rich's ``Text.wrap`` asks for; it only measures, so one serves all."""
    from rich.console import Console

    return Console(file=StringIO(), color_system=None, legacy_windows=False)


@lru_cache(maxsize=4)
def _console_on(stream: Any, columns: str | None) -> Console:
    """A console on ``stream``, made once: its ``width`` follows the terminal's size, and
    ``COLUMNS`` (read when it is made) is part of the key."""
    from rich.console import Console

    return Console(file=stream)


class _Writer:
    """Builds one rich ``Text``, wrapping values under their key at a fixed width."""

    def __init__(self, width: int) -> None:
        from rich.text import Text

        self.width = width
        self._in_run = False  # the last thing written was a one-line record
        self.text = Text(end="")
        self._new = Text

    def _wrap(self, text: Text, width: int) -> list[Text]:
        """``text.wrap(...)``'s lines; a text that fits on one line is that line, as
        rich's wrap would give it, without the cost of dividing it into words."""
        plain = text.plain
        if "\n" not in plain and "\t" not in plain and _cells(plain) <= width:
            return [text]
        return list(text.wrap(_measuring_console(), width, overflow="fold"))

    def line(self, *parts: Text | tuple[str, str]) -> None:
        for part in parts:
            if isinstance(part, tuple):
                self.text.append(*part)
            else:
                self.text.append_text(part)
        self.text.append("\n")

    def paragraph(self, items: Iterable[list[tuple[str, str]]]) -> None:
        """Items joined by `` · ``, wrapped at the width."""
        para = self._new()
        for i, pieces in enumerate(items):
            if i:
                para.append(" · ", _DIM)
            for piece in pieces:
                para.append(*piece)
        for wrapped in self._wrap(para, self.width):
            wrapped.rstrip()
            self.line(wrapped)

    def record(self, title: str, fields: Mapping[str, Any], *, apart: bool = False) -> None:
        """A short record as one line (two if wrapped), runs of them together; else a
        block of ``key  value`` lines, set apart by blank lines."""
        shown = [(_shown_key(k), _shown(v)) for k, v in fields.items() if not is_empty(v)]
        compact = None
        if not any("\n" in v or "\t" in v for _, v in shown):
            para = self._new()
            para.append(title, _TITLE)
            for i, (key, value) in enumerate(shown):
                para.append(" · " if i else "  ", _DIM if i else "")
                para.append(key, _KEY)
                para.append(f": {value}")
            room = max(self.width - len(_HANG), _MIN_VALUE_CELLS)
            compact = self._wrap(para, room)
            if len(compact) > _MAX_COMPACT_LINES:
                compact = None
        if compact is None or not self._in_run or apart:
            self.line()
        if compact is None:
            self._block(title, shown)
        else:
            for i, wrapped in enumerate(compact):
                wrapped.rstrip()
                self.line((_HANG if i else "", ""), wrapped)
        self._in_run = compact is not None and not apart

    def _block(self, title: str, shown: list[tuple[str, str]]) -> None:
        self.line((title, _TITLE))
        widths = [_cells(k) for k, _ in shown]
        key_cells = max((w for w in widths if w <= _MAX_KEY_CELLS), default=0)
        indent = " " * (2 + key_cells + 2)
        room = max(self.width - len(indent), _MIN_VALUE_CELLS)
        for key, value in shown:
            lines = self._wrap(self._new(value), room)
            if _cells(key) > key_cells:  # a very long key gets a line of its own
                self.line(("  ", ""), (key, _KEY))
                first = indent
            else:
                first = " " * (key_cells - _cells(key) + 2)
                self.text.append("  ")
                self.text.append(key, _KEY)
            for i, wrapped in enumerate(lines):
                wrapped.rstrip()
                lead = first if i == 0 else indent
                self.line((lead if wrapped.plain else "", ""), wrapped)


def _cells(text: str) -> int:
    from rich.cells import cell_len

    return cell_len(text)


def _counts(stats: Stats) -> list[list[tuple[str, str]]]:
    parts = [
        [("agentout", _TITLE)],
        [(f"{stats.included} of {stats.total} records", _TITLE)],
    ]
    if stats.omitted and not stats.lean:
        parts.append([(f"{stats.omitted} omitted", _WARN)])
    if stats.reduced and not stats.lean:
        parts.append([(f"{stats.reduced} shortened", _WARN)])
    tokenizer = "" if stats.lean else f" ({stats.tokenizer})"
    parts.append([(f"{stats.tokens} tokens{tokenizer}", "")])
    if stats.over_budget:
        parts.append([("over budget", _ALERT)])
    return parts


def _title(record: Record, number: int) -> str:
    return f"#{number}" if record.kind == "R" else f"#{number} {record.kind}"


class TextFormat:
    name = "text"

    def __init__(self, color: bool | None = None, width: int | None = None) -> None:
        if width is not None and width < 1:
            raise ValueError(f"width must be >= 1, got {width}")
        self.color = color
        self.width = width

    def render(self, document: Document) -> str:
        """The plain text: what pack counts, whatever the terminal."""
        return self._build(document, self._width()).plain

    def styled(self, document: Document) -> str:
        """``render``'s characters with ANSI styles when styling is on, else ``render``."""
        width = self._width()
        text = self._build(document, width)
        styled, no_color = self._styling()
        if not styled:
            return text.plain
        from rich.console import Console

        out = StringIO()
        console = Console(
            file=out,
            width=width,
            force_terminal=True,
            color_system="standard",
            no_color=no_color,
            legacy_windows=False,
            soft_wrap=True,
        )
        console.print(text, end="", markup=False, highlight=False, emoji=False)
        return out.getvalue()

    def fragment(self, record: Record, view: View) -> str:
        writer = _Writer(self._width())
        writer.record(_title(record, 1), view)
        return writer.text.plain

    def _build(self, document: Document, width: int) -> Text:
        writer = _Writer(width)
        writer.paragraph(_counts(document.stats))
        header = [
            [(f"{_shown_key(k)}: ", _DIM), (_shown(v), "")]
            for k, v in document.header.items()
            if not is_empty(v)
        ]
        if header:
            writer.paragraph(header)
        for number, (record, view) in enumerate(document.records, start=1):
            writer.record(_title(record, number), view)
        if any(not is_empty(v) for v in document.summary.values()):
            writer.record("summary", document.summary, apart=True)
        return writer.text

    def _width(self) -> int:
        if self.width is not None:
            return self.width
        if is_terminal(sys.stdout):
            return _console_on(sys.stdout, os.environ.get("COLUMNS")).width
        return DEFAULT_WIDTH

    def _styling(self) -> tuple[bool, bool]:
        """(style at all, without colours): explicit, else stdout as rich detects it."""
        if self.color is not None:
            return self.color, False
        from rich.console import Console

        probe = Console(file=sys.stdout)
        return probe.is_terminal and not probe.is_dumb_terminal, probe.no_color


FORMAT = TextFormat()
