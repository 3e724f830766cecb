"""Every claim agentout's text output makes about the output it stands for, checked
against that output: what each marker and the closing line say, read back from the text
alone, as an agent reads them.

    from output_claims import check_claims
    check_claims(raw_bytes, delivered_text)

- a line shown is the output's line at that place (as agentout shows it: colour and
  redraws resolved), the lines shown between two markers follow one another;
- ``[… N lines · … --lines A:B]``: N is B - A + 1, and A is the line after the last one
  shown or accounted for;
- ``[… the same line N more times]``: the N lines after the one shown are that line;
- ``[… the same K lines M more times]``: the K lines shown before it are printed M more
  times right after;
- ``[… N more like this: SHAPE]``: the line shown has SHAPE, and N more lines of the whole
  output have it (``<*>`` a word that varies, else each ``*`` one or more characters; a
  space, one or more blanks);
- the closing line: ``lines=`` is the output's line count, ``shown=`` the lines shown,
  ``tokens=`` what the whole text costs, and every line of the output is accounted for.

Only the generic form (lines as printed) is read here: a reducer's form rewrites lines.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agentout.formats.raw import closing_fields
from agentout.read.trouble import clean
from agentout.tokens import get_tokenizer

_GAP = re.compile(r"\[… (\d+) lines?(?: · .*?(?:--lines |lines=)(\d+):(\d+)| not kept)?\]")
_FOLD = re.compile(r"\[… (\d+) more like this: (.*)\]")
_SAME = re.compile(r"\[… the same line (\d+) more times?\]")
_BLOCK = re.compile(r"\[… the same (\d+) lines (\d+) more times?\]")
_TERSE = re.compile(r"(.*)… \(\+(\d+) chars\) …(.*)", re.DOTALL)


@dataclass
class Claims:
    """What was checked: the folds by shape read, and how many lines were shown."""

    folds: int = 0
    repeats: int = 0
    gaps: int = 0
    shown: int = 0


def output_lines(data: bytes) -> list[str]:
    """The output's lines as agentout numbers and shows them."""
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()
    return [clean(part) for part in parts]


def shape_pattern(shape: str) -> re.Pattern[str]:
    """What a shape says, as a pattern of a line's text (see the module docstring): each
    run of spaces one or more blanks."""

    def literal(text: str) -> str:
        return r"[ \t]+".join(re.escape(run) for run in re.split(" +", text))

    if "<*>" in shape:
        words = re.split(" +", shape)
        body = r"[ \t]+".join(r"[^ \t]+" if word == "<*>" else re.escape(word) for word in words)
    else:
        body = ".+".join(literal(part) for part in shape.split("*"))
    return re.compile(rf"[ \t]*{body}[ \t]*", re.DOTALL)


def _same_line(shown: str, line: str) -> bool:
    if shown == line:
        return True
    terse = _TERSE.fullmatch(shown)
    if terse is None:
        return False
    head, cut, tail = terse.group(1), int(terse.group(2)), terse.group(3)
    return (
        line.startswith(head) and line.endswith(tail) and len(line) == len(head) + cut + len(tail)
    )


def check_claims(data: bytes, text: str, tokenizer: str | None = None) -> Claims:
    """Assert every claim of ``text`` about the output ``data`` (see the module)."""
    lines = output_lines(data)
    out = text.split("\n")
    if out[-1] == "":
        out.pop()
    else:  # as printed, the last line without its newline
        assert not data.endswith(b"\n"), "a newline the output ended with is kept"
    fields = closing_fields(text)
    if fields:
        out.pop()
    claims = Claims()
    n = 1  # the output's line the next line shown must be
    shown_since: list[str] = []  # the lines shown since the last gap, in order
    for line in out:
        gap = _GAP.fullmatch(line)
        if gap is not None:
            count = int(gap.group(1))
            if gap.group(2) is not None:
                first, last = int(gap.group(2)), int(gap.group(3))
                assert count == last - first + 1, line
                assert first == n, f"{line}: the line after the last one shown is {n}"
            n += count
            shown_since = []
            claims.gaps += 1
            continue
        fold = _FOLD.fullmatch(line)
        if fold is not None:
            more, shape = int(fold.group(1)), fold.group(2)
            pattern = shape_pattern(shape)
            assert shown_since, f"{line} follows no line"
            assert pattern.fullmatch(shown_since[-1]), f"{line} follows a line of another shape"
            having = sum(1 for each in lines if pattern.fullmatch(each))
            assert having == more + 1, f"{line}: {having - 1} more lines have that shape"
            claims.folds += 1
            continue
        same = _SAME.fullmatch(line)
        if same is not None:
            more = int(same.group(1))
            assert shown_since, line
            assert lines[n - 1 : n - 1 + more] == [shown_since[-1]] * more, line
            n += more
            claims.repeats += 1
            continue
        block = _BLOCK.fullmatch(line)
        if block is not None:
            size, more = int(block.group(1)), int(block.group(2))
            assert len(shown_since) >= size, f"{line}: the block is not shown whole"
            copy = lines[n - 1 - size : n - 1]
            assert copy == shown_since[-size:], line
            assert lines[n - 1 : n - 1 + size * more] == copy * more, line
            n += size * more
            claims.repeats += 1
            continue
        assert not line.startswith("[… "), f"a marker no check reads: {line}"
        assert n <= len(lines), f"a line shown past the output's end: {line!r}"
        assert _same_line(line, lines[n - 1]), f"line {n} is {lines[n - 1]!r}, shown {line!r}"
        shown_since.append(line)
        n += 1
        claims.shown += 1
    if "lines" in fields:
        assert int(fields["lines"]) == len(lines)
        assert n - 1 == len(lines), f"lines {n}:{len(lines)} are not accounted for"
    else:
        assert n - 1 == len(lines), "given whole, every line is shown"
    if "shown" in fields:
        said = int(fields["shown"])
        assert said == claims.shown, f"shown={said}, {claims.shown} shown"
    if "tokens" in fields:
        assert int(fields["tokens"]) == get_tokenizer(tokenizer).count(text)
    return claims
