"""Text as it was printed: the kept lines verbatim, one marker per gap, one closing line.

The form of command output, logs and paged files. Records are lines (kind ``L``: one
line of the output each, ``n`` its number) or blocks a reducer made (any other kind:
``text`` of one or more lines, ``n``/``last`` the output lines they stand for, if any).
Between two records shown, the lines left out become one marker with the exact command
that shows them::

    [… 120 lines · agentout show 3f2a9c1be4d07a55 --lines 5:124]

For ``L`` records any output line not shown is a gap (the rest of the output was never
a record); for other records only records left out by the budget make one, so what a
reducer drops on purpose (hints, boilerplate) costs nothing. The last line says what was
done, when anything was (a page of ``agentout show``, whose summary says which lines it
``shown``, has no markers: it shows what was asked, and says what comes ``next``)::

    [agentout: exit=3 lines=5000 shown=312 tokens=1234 · agentout show 3f2a9c1be4d07a55]

and nothing at all is added when there is nothing else to say than the exit status (the
agent's client says it: ``Exit code 3``). Header fields read: ``ref`` (the stored
output's name), ``lines`` (the output's line count), ``exit``, ``signal``, ``error``,
``secrets``, ``warning``, ``held_open`` (reading stopped while a process the command
started still held its output open: one marker line says so, before the closing line)
and ``capped`` (the output passed the store's cap: its exact size and lines, and how
much was not kept).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agentout.read.visible import visible
from agentout.records import Document, Record, View

__all__ = [
    "CLI",
    "FORMAT",
    "MCP",
    "Pager",
    "RawFormat",
    "closing_fields",
    "gap_marker",
    "held_open_marker",
]


class Pager:
    """The commands a marker names to show what was left out: the stored output whole
    (``{ref}``), and some of its lines (``{first}``, ``{last}``). ``CLI`` for an agent with a
    shell (``agentout show``), ``MCP`` for a client of agentout's MCP server (its
    ``read_output`` tool); a hook may name agentout by the path it was started from."""

    def __init__(self, whole: str, lines: str) -> None:
        self.whole, self.lines = whole, lines

    @classmethod
    def for_command(cls, command: str) -> Pager:
        """``agentout show`` as ``command`` (``/path/to/agentout``, ``python -m agentout``)."""
        return cls(f"{command} show {{ref}}", f"{command} show {{ref}} --lines {{first}}:{{last}}")


CLI = Pager.for_command("agentout")
MCP = Pager("read_output ref={ref}", "read_output ref={ref} lines={first}:{last}")


def gap_marker(
    count: int, first: int, last: int, ref: str | None, pager: Pager = CLI, *, lost: bool = True
) -> str:
    """The line standing for output lines ``first``..``last`` (``count`` of them) not shown:
    the command that shows them, or, with no reference, whether they were ``lost`` (the
    store failed) or only left unnamed (a budget too small for the reference)."""
    noun = "line" if count == 1 else "lines"
    if ref is None:
        return f"[… {count} {noun} not kept]" if lost else f"[… {count} {noun}]"
    return f"[… {count} {noun} · {pager.lines.format(ref=ref, first=first, last=last)}]"


def held_open_marker(after: str) -> str:
    """The line saying that reading stopped ``after`` (``2s``) the command exited, while a
    process it started still held its output open: what that one wrote since is not here."""
    return f"[… not read: a process the command started held its output open {after} past its exit]"


def _span(view: View) -> tuple[int, int] | None:
    first = view.get("n")
    if not isinstance(first, int):
        return None
    last = view.get("last")
    return first, last if isinstance(last, int) else first + str(view["text"]).count("\n")


class RawFormat:
    name = "raw"

    def __init__(self, pager: Pager = CLI) -> None:
        self.pager = pager
        # a record and, at worst, the marker of a gap before it
        self._marker = gap_marker(1000, 10000, 11000, "0123456789abcdef", pager) + "\n"
        self.gap_allowance = len(self._marker)  # what a fragment adds for a gap before it

    def fragment(self, record: Record, view: View) -> str:
        return f"{visible(str(view['text']))}\n{self._marker}"

    def render(self, document: Document) -> str:
        header = document.header
        ref = header.get("ref")
        lost = ref is None and bool(header.get("warning"))  # the store failed: not kept
        out: list[str] = []
        covered = 0  # the last output line shown or accounted for
        previous: tuple[int, str] | None = None  # index and kind of the record before
        indices = document.indices or tuple(range(len(document.records)))
        shown = gaps = 0
        page = "shown" in document.summary  # a page shows what was asked: no gap markers
        for (record, view), index in zip(document.records, indices, strict=True):
            text = visible(str(view["text"]))
            span = None if page else _span(view)
            if span is not None:
                first, last = span
                lines_only = record.kind == "L" and (previous is None or previous[1] == "L")
                left_out = previous is not None and index > previous[0] + 1
                if first > covered + 1 and (lines_only or left_out or (previous is None and index)):
                    where = (covered + 1, first - 1, ref, self.pager)
                    out.append(gap_marker(first - covered - 1, *where, lost=lost))
                    gaps += 1
                covered = max(covered, last)
            out.append(text)
            shown += _lines_shown(text)
            previous = (index, record.kind)
        total = header.get("lines")
        lines_only = previous is None or previous[1] == "L"
        if isinstance(total, int) and total > covered and lines_only and not page:
            where = (covered + 1, total, ref, self.pager)
            out.append(gap_marker(total - covered, *where, lost=lost))
            gaps += 1
        if header.get("held_open") and not page:
            out.append(held_open_marker(visible(str(header["held_open"]))))
        closing = _closing(header, document, shown, gaps > 0, self.pager)
        if closing:
            out.append(closing)
        return "".join(line + "\n" for line in out)


def _lines_shown(text: str) -> int:
    """The lines of a record's text that show the output (``shown=`` counts them), not
    agentout's own markers in it (``[… 4999 more like this: ...]``): a line of the output
    that begins as a marker does was given a backslash (``agentout.read.visible.own_line``)."""
    return sum(1 for line in text.split("\n") if not line.lstrip(" ").startswith("[… "))


def _closing(
    header: Mapping[str, Any], document: Document, shown: int, gaps: bool, pager: Pager
) -> str:
    """The last line: nothing when the output was shown whole and the command succeeded."""
    stats = document.stats
    ref = header.get("ref")
    status = header.get("exit", 0)
    fields: list[str] = []
    if status:
        fields.append(f"exit={status}")
    for key in ("signal", "error", "binary", "held_open"):
        if header.get(key):
            fields.append(f"{key}={visible(str(header[key]))}")
    cut = stats.truncated or stats.over_budget or gaps
    if cut:  # how much there is, how much is shown, what it costs
        if isinstance(header.get("lines"), int):
            fields.append(f"lines={header['lines']}")
        fields.append(f"shown={shown}")
        fields.append(f"tokens={stats.tokens}")
    if header.get("secrets"):
        fields.append(f"secrets={header['secrets']}")
    if stats.over_budget:
        fields.append("over_budget=true")
    if header.get("warning"):
        fields.append(f"warning={visible(str(header['warning']))}")
    if header.get("capped"):
        fields.append(f"capped={visible(str(header['capped']))}")
    summary = dict(document.summary)
    following = summary.pop("next", None)
    if summary:  # a page's account of itself (shown=A:B) replaces the count of lines
        fields = [f for f in fields if not f.startswith("shown=")]
        fields.extend(f"{key}={visible(str(value))}" for key, value in summary.items())
    if (not fields or fields == [f"exit={status}"]) and not ref:
        return ""  # the exit status alone: the agent's client says it (Exit code N)
    if following:
        tail = f" · next: {visible(str(following))}"
    else:  # a page says nothing more: it is the store's file already
        shows = pager.whole.format(ref=ref)
        tail = f" · {shows}" if ref and not document.summary else ""
    return f"[agentout: {' '.join(fields)}{tail}]" if fields else f"[{pager.whole.format(ref=ref)}]"


def closing_fields(text: str) -> dict[str, str]:
    """The fields of the closing line of ``text`` (``[agentout: k=v ... · tail]`` or
    ``[exit N]``), for programs: ``{"exit": "3", "ref": ID, "next": CMD, ...}``; empty
    when the output was shown whole and the command succeeded."""
    lines = text.rstrip("\n").rsplit("\n", 1)
    last = lines[-1]
    if last.startswith("[exit ") and last.endswith("]"):
        return {"exit": last[6:-1]}
    if not last.startswith("[agentout") or not last.endswith("]"):
        return {}
    inner = last[1:-1]
    if inner.startswith("agentout show "):  # [agentout show ID]
        body, tail = "", inner
    else:
        body, _, tail = inner.removeprefix("agentout:").strip().partition(" · ")
    fields: dict[str, str] = {}
    for part in body.split(" "):
        key, eq, value = part.partition("=")
        if eq:
            fields[key] = value
        elif fields:  # a value with spaces (error=..., warning=...)
            last_key = list(fields)[-1]
            fields[last_key] += " " + part
    if tail.startswith("next: "):
        fields["next"] = tail[len("next: ") :]
    elif tail.startswith("agentout show "):
        fields["ref"] = tail[len("agentout show ") :]
    return fields


FORMAT = RawFormat()
