"""Text as a terminal, a person and an agent all see the same: nothing hidden, nothing driven.

Command output is meant for a terminal: colour and cursor escapes, carriage-return
redraws of a progress bar. ``terminal_text`` keeps what the terminal would end up showing
(escapes removed; a line redrawn with ``\\r``, erase-line escapes and cursor moves along
it drawn cell by cell as the terminal draws it, or its ``\\r`` shown escaped where a cell
cannot be known) and never drops text: words the redraw hid from a reader follow the
line, marked ``[overwritten: ...]``, and only a progress bar's earlier frames (the same
words, other numbers and bars) fold into its last. ``visible`` then makes what no reader
would see as text show up as an escape: C0 and C1 controls (tab aside), DEL, bidi
embeddings, overrides and isolates (text that reads one way and is another), Unicode's
line and paragraph separators, and the characters Unicode says a renderer shows as nothing
(Default_Ignorable_Code_Point: zero-width spaces and joiners, the BOM, soft hyphens,
variation selectors, tag characters...). ``\\u202e`` in the output is the character
U+202E in the input; one past U+FFFF is written as its UTF-16 pair (``\\udb40\\udc41``),
as JSON writes it. ``own_line`` keeps a command from printing a line that reads as one
of agentout's own markers.
"""

from __future__ import annotations

import functools
import re
from typing import Any

__all__ = [
    "INVISIBLE",
    "INVISIBLE_PAST_BMP",
    "MARKS",
    "OVERWRITTEN",
    "UNSHOWN",
    "escape_match",
    "escaped",
    "is_terminal",
    "own_line",
    "terminal_text",
    "visible",
]

# How agentout's own lines in text output begin (gap markers, the closing line).
MARKS = ("[agentout", "[… ", "[exit ")

_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
# What no reader sees as text beyond C0 controls (a character class body, for every
# format): DEL and C1 controls, bidi marks, embeddings, overrides and isolates, Unicode's
# line and paragraph separators, and Unicode's Default_Ignorable_Code_Point (a renderer
# shows them as nothing: U+00AD, U+034F, U+115F-1160, U+17B4-17B5, U+180B-180F,
# U+200B-200F, U+2060-206F, U+3164, U+FE00-FE0F, U+FEFF, U+FFA0, U+FFF0-FFF8,
# U+1BCA0-1BCA3, U+1D173-1D17A, U+E0000-E0FFF) with the interlinear annotation marks
# U+FFF9-FFFB, which hide the text between them.
INVISIBLE_PAST_BMP = "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff"
INVISIBLE = (
    "\x7f-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb" + INVISIBLE_PAST_BMP
)
UNSHOWN = re.compile(f"[\x00-\x08\x0b-\x1f{INVISIBLE}]")
_ASCII_UNSHOWN = re.compile("[\x00-\x08\x0b-\x1f\x7f]")  # the same for ASCII text: faster


@functools.cache
def _compiled(pattern: str) -> re.Pattern[str]:
    """A pattern compiled when first used: the emoji classes and the redraw's cost
    milliseconds to compile, and every recipe line's shell imports this module."""
    return re.compile(pattern)


def escaped(char: str) -> str:
    """The JSON escape of one character (``\\u200b``); past U+FFFF its UTF-16 pair."""
    code = ord(char)
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


# Emoji, and what may take an emoji's look with U+FE0F (keycaps, ©, ™, arrows...): a
# zero-width joiner between two (👩‍💻) and a variation selector after one (❤️) draw as
# part of the emoji, so they stay as they are; anywhere else they are shown escaped.
_EMOJI = (
    "\u00a9\u00ae\u203c\u2049\u2122\u2139\u2190-\u21ff\u2300-\u23ff\u24c2\u25a0-\u27bf"
    "\u2900-\u297f\u2b00-\u2bff\u3030\u303d\u3297\u3299\U0001f000-\U0001faff"
)
_EMOJI_BEFORE = f"[{_EMOJI}][\ufe0e\ufe0f]?\\Z"
_EMOJI_AFTER = f"[{_EMOJI}]"
_KEYCAP = f"[{_EMOJI}#*0-9]"


def escape_match(match: re.Match[str]) -> str:
    """An unshown character found by ``match`` as its escape (for ``re.sub``), but for
    the joiner and the variation selectors that draw as part of an emoji."""
    char, text, at = match.group(), match.string, match.start()
    if char == "\u200d" and at and _compiled(_EMOJI_BEFORE).search(text, max(0, at - 2), at):
        if _compiled(_EMOJI_AFTER).match(text, at + 1):
            return char
    elif char in "\ufe0e\ufe0f" and at and _compiled(_KEYCAP).match(text, at - 1):
        return char
    return escaped(char)


def visible(text: str) -> str:
    """``text`` with every character no reader would see shown as ``\\uXXXX``."""
    found = _ASCII_UNSHOWN if text.isascii() else UNSHOWN
    return found.sub(escape_match, text) if found.search(text) else text


def terminal_text(line: str) -> str:
    """One line as a terminal leaves it: escapes gone, a ``\\r`` redraw, an erased part or
    a cursor moved back drawn as the terminal draws it (``_redrawn``), then made
    ``visible``. What the redraw hid from a reader (text written over or erased, other
    than a progress bar's earlier frames) is kept after it, marked (``OVERWRITTEN``)."""
    line = line.removesuffix("\r")
    if "\r" in line and "\x1b" not in line and _compiled(_PRINTABLE).match(line):
        line = _overwritten(line)
    elif "\r" in line or ("\x1b[" in line and _compiled(_MOVED).search(line)):
        line = _redrawn(line)
    elif "\x1b" in line:
        line = _ANSI.sub("", line)
    return visible(line)


# What a redraw hid, after the line as drawn: `` [overwritten: TEXT]`` for each state of the
# line a reader never saw whole (in the order drawn).
OVERWRITTEN = "[overwritten: "
# in a redrawn line: a carriage return, an erase-line escape (ESC [ n K), a backspace, the
# cursor moved along the line (ESC [ n D: back, C: forward, G: to a column), another escape
_ERASE = r"\x1b\[[012]?K"
_MOVED = _ERASE + r"|\x1b\[\d*[CDG]"
_REDRAW = r"(\r)|\x1b\[([012]?)K|(\x08)|\x1b\[(\d*)([CDG])|(" + _ANSI.pattern + ")"
_PRINTABLE = r"[ -~\r]*\Z"  # a redraw that is a plain overwrite
_LETTER = r"[^\W\d_]+"  # a word, as a reader sees one: letters only
_KEPT_STATES = 8  # hidden states of one line kept after it; past that, the line is kept whole
_STATE_CHARS = 1 << 22  # of the states of one line looked at; past it, the line is kept whole


def _overwritten(line: str) -> str:
    """A redraw of printable ASCII alone (a progress bar): each part after a ``\\r``
    written over the line from its first column."""
    shown = ""
    writes = []
    for part in line.split("\r"):
        shown = part + shown[len(part) :]
        writes.append((part, shown))
    found = _with_hidden(shown, writes)
    return line if found is None else found


def _redrawn(line: str) -> str:
    """A line with carriage returns, erasures and cursor moves as a terminal shows it:
    each part after a ``\\r`` written over the line from its first column (``"abc\\rX"``
    shows ``Xbc``, ``"a\\rb"`` shows ``b``), an erase-line escape blanking what it erases,
    a backspace or a cursor move taking the cursor along the line, a colour escape taking
    no cell. Where a cell cannot be known (a wide, combining or control character, a
    cursor move off the line or past its length), the escapes are removed and each
    ``\\r`` stays, for ``visible`` to show escaped: all the text is kept."""
    cells: list[str | None] = []  # what each cell shows; None: erased, shown blank
    writes: list[tuple[str, str]] = []  # each text written, and the line once it was
    written = ""  # since the last step that may hide it
    column, at, budget = 0, 0, _STATE_CHARS
    for found in _compiled(_REDRAW).finditer(line):
        text = line[at : found.start()]
        column = _drawn(cells, column, text)
        carriage, erase, backspace, count, move, other = found.groups()
        if column < 0 or (other and not other.endswith("m")) or budget < 0:
            return _ANSI.sub("", line)  # a cursor move: where it lands is not known here
        at = found.end()
        written += text
        if other:
            continue  # a colour: no cell
        if _compiled(_LETTER).search(written):  # words that the next step may hide
            writes.append((written, _shown(cells)))
            budget -= len(cells)
        written = ""
        if carriage:
            column = 0
        elif backspace:
            column = max(0, column - 1)
        elif move:
            steps = max(1, int(count or 1))
            column = {"D": column - steps, "C": column + steps, "G": steps - 1}[move]
            if column > len(line):
                return _ANSI.sub("", line)  # past the line: where depends on the terminal
            column = max(0, column)
        elif erase in ("", "0"):  # from the cursor to the end
            del cells[column:]
        else:  # 1: from the start to the cursor; 2: the whole line
            end = len(cells) if erase == "2" else min(column + 1, len(cells))
            cells[:end] = [None] * end
    if _drawn(cells, column, line[at:]) < 0:
        return _ANSI.sub("", line)
    drawn = _with_hidden(_shown(cells), writes)
    return _ANSI.sub("", line) if drawn is None else drawn


def _shown(cells: list[str | None]) -> str:
    end = len(cells)
    while end and cells[end - 1] is None:
        end -= 1
    return "".join(" " if cell is None else cell for cell in cells[:end])


def _with_hidden(shown: str, writes: list[tuple[str, str]]) -> str | None:
    """``shown`` (the line as the terminal leaves it), then, marked, the line as it was
    when a word was written that the reader no longer sees (in no word of ``shown`` nor
    of a line kept before it). A progress bar's frames write their words again and
    change only numbers and bars: nothing of them is kept. None past ``_KEPT_STATES``
    lines kept: the line is better kept whole, as printed."""
    seen = _compiled(_LETTER).findall(shown)
    kept: list[str] = []
    for text, state in writes:
        for word in _compiled(_LETTER).findall(text):
            if not any(word in other for other in seen):
                if len(kept) == _KEPT_STATES:
                    return None
                kept.append(state.rstrip(" "))
                seen += _compiled(_LETTER).findall(state)
                break
    if not kept:
        return shown
    marks = "".join(f" {OVERWRITTEN}{state}]" for state in kept)
    return shown.rstrip(" ") + marks if shown.strip(" ") else marks[1:]


def _drawn(cells: list[str | None], column: int, text: str) -> int:
    """``text`` written over ``cells`` from ``column``; the column after it, or -1 when
    a character of it does not take exactly one cell."""
    if not (text.isascii() and text.isprintable()) and not all(map(_one_cell, text)):
        return -1
    if text and column > len(cells):  # the cursor moved past the end: blank cells between
        cells.extend([None] * (column - len(cells)))
    cells[column : column + len(text)] = text
    return column + len(text)


def _one_cell(char: str) -> bool:
    import unicodedata

    return (
        char.isprintable()
        and unicodedata.east_asian_width(char) not in ("W", "F")
        and unicodedata.category(char) not in ("Mn", "Me", "Cf")
        and not UNSHOWN.match(char)
    )


def own_line(line: str) -> str:
    """A line of a command's output that begins as agentout's own lines do gets a
    backslash first (``\\[agentout: ...``), so output cannot pose as agentout."""
    return "\\" + line if line.startswith(MARKS) else line


def is_terminal(stream: Any) -> bool:
    """Whether ``stream`` is a terminal; False for a replaced or closed stream too."""
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
