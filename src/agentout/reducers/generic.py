"""The reducer for any output: the lines that matter, the rest counted and marked.

It works on a ``Scan`` of the output (so on output of any size, in bounded memory). What
matters: every error line with its detail (a traceback, the ``File "x", line N`` above
it, the code and caret under it), every warning, how the output began (its first few
lines) and how it ended (its last lines); code frames and other detail under warnings
and plain lines are left out. Runs of the same line are shown once with their count;
warnings of one shape (``warning: unused variable ‘x’``, twelve hundred times) are shown
once, the first of them, with the count and the shape. Each kept line is a record of its
own (kind ``L``), in line order, and ``order`` says which matter most, so a budget leaves
out the least important: the end first kept, then the errors, their detail, warnings,
the beginning.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentout.read.trouble import Line, ScanResult
from agentout.records import Record

__all__ = ["FOLD_AT_LEAST", "Digest", "digest"]

FOLD_AT_LEAST = 5  # warnings of one shape shown once from this many on
HEAD_SHOWN = 8  # plain lines: how the output began
TAIL_SHOWN = 16  # and how it ended
TERSE_LINE_CHARS = 400  # a longer line also has a terse view: its start and its end
_MINED_AT_MOST = 5000  # warnings mined for shapes (Drain: ~25 µs a line)
# What varies between lines of one shape: numbers, and quoted or bracketed names.
_SHAPE_LETTERS = 8
_LOCATED = re.compile(r"\S:\d+:\d+: ")
_SHAPE = re.compile(r"\d+|‘[^’]*’|'[^']*'|\"[^\"]*\"|`[^`]*`")


@dataclass(frozen=True)
class Digest:
    """Records of the kept lines, in line order, and the order they matter in."""

    records: list[Record]
    order: list[int]


@dataclass
class _Shown:
    """A record to be: its first line, how many lines it stands for, what it says."""

    line: Line
    last: int
    text: str
    level: str


def digest(scan: ScanResult) -> Digest:
    """See the module docstring."""
    shown = _what_matters(_fold_repeats(_fold_shapes(scan.lines)))
    return Digest([_record(item) for item in shown], _order(shown))


def _record(item: _Shown) -> Record:
    """One line (or a folded run of them); a long one also has a terse view, its start
    and its end, so a budget that cannot hold it whole still shows where it went."""
    full = {"text": item.text, "n": item.line.n, "last": item.last}
    if len(item.text) <= TERSE_LINE_CHARS:
        return Record.of(full, kind="L")
    head, tail = item.text[: TERSE_LINE_CHARS * 3 // 4], item.text[-TERSE_LINE_CHARS // 4 :]
    cut = len(item.text) - len(head) - len(tail)
    return Record.of({**full, "text": f"{head}… (+{cut} chars) …{tail}"}, full, kind="L")


def _what_matters(items: Sequence[_Shown]) -> list[_Shown]:
    """Errors and their detail, warnings, the first and last plain lines."""
    from agentout.read.trouble import is_detail

    errors = {item.line.n for item in items if item.level == "error"}
    # an error that says where it is (file:line:col: error: ...) needs no code frame under it
    located = {
        item.line.n for item in items if item.level == "error" and _LOCATED.search(item.text)
    }
    keep = {
        item.line.n
        for item in items
        if item.level in ("error", "warning")
        or (
            item.level == "context"
            and item.line.parent in errors
            and not (item.line.parent in located and is_detail(item.text))
        )
    }
    plain = [
        item
        for item in items
        if item.level == "info" and item.text.strip() and not is_detail(item.text)
    ]
    # plain lines of one shape ("In function 'f':" before each of 1,200 warnings) count once
    distinct: list[_Shown] = []
    shapes: set[str] = set()
    for item in plain:
        shape = _SHAPE.sub("#", item.text)
        if sum(c.isalpha() for c in shape) < _SHAPE_LETTERS:
            distinct.append(item)  # too little text to call two lines the same (seq's 1, 2)
        elif shape not in shapes:
            shapes.add(shape)
            distinct.append(item)
    keep.update(item.line.n for item in distinct[:HEAD_SHOWN])
    keep.update(item.line.n for item in distinct[-TAIL_SHOWN:])
    return [item for item in items if item.line.n in keep]


def _fold_repeats(lines: Sequence[Line | _Shown]) -> list[_Shown]:
    """Consecutive identical lines as one, with a count."""
    out: list[_Shown] = []
    run = 0
    for item in lines:
        shown = item if isinstance(item, _Shown) else _Shown(item, item.n, item.text(), item.level)
        previous = out[-1] if out else None
        if (
            previous is not None
            and isinstance(item, Line)
            and previous.last + 1 == item.n
            and previous.line.text() == shown.text
            and previous.level == shown.level
        ):
            run += 1
            previous.last = item.n
            previous.text = f"{shown.text}\n[… the same line {run} more times]"
            continue
        run = 0
        out.append(shown)
    return out


def _fold_shapes(lines: list[Line], level: str = "warning") -> list[Line | _Shown]:
    """Lines of ``level`` of one shape (and the detail under them) as the first of them."""
    warnings = [line for line in lines if line.level == level]
    if len(warnings) < FOLD_AT_LEAST:
        return list(lines)
    shapes = _shapes(warnings[:_MINED_AT_MOST])
    members: dict[str, list[Line]] = {}
    for line, shape in zip(warnings, shapes, strict=False):
        members.setdefault(shape, []).append(line)
    folded: set[int] = set()  # line numbers left out: members after the first, and detail
    firsts: dict[int, _Shown] = {}
    for shape, group in members.items():
        if len(group) < FOLD_AT_LEAST:
            continue
        first = group[0]
        text = f"{first.text()}\n[… {len(group) - 1} more like this: {shape}]"
        firsts[first.n] = _Shown(first, first.n, text, level)
        folded.update(line.n for line in group[1:])
    if not folded:
        return list(lines)
    out: list[Line | _Shown] = []
    skipping = False
    for line in lines:
        if line.level == level:
            skipping = line.n in folded
        elif line.level != "context":
            skipping = False
        if skipping:
            continue
        out.append(firsts.get(line.n, line))
    return out


def _shapes(lines: Sequence[Line]) -> list[str]:
    """The shape of each line, by Drain (drain3): what varies becomes ``<*>``."""
    from drain3 import TemplateMiner
    from drain3.template_miner_config import TemplateMinerConfig

    config = TemplateMinerConfig()
    config.profiling_enabled = False
    config.drain_sim_th = 0.4
    miner = TemplateMiner(config=config)
    ids = [miner.add_log_message(line.text())["cluster_id"] for line in lines]
    templates = {cluster.cluster_id: cluster.get_template() for cluster in miner.drain.clusters}
    return [templates[cluster_id] for cluster_id in ids]


def _from_both_ends(items: Sequence[int]) -> list[int]:
    """first, last, second, second to last, ...: what a head or a tail cut keeps first."""
    out: list[int] = []
    lo, hi = 0, len(items) - 1
    while lo <= hi:
        out.append(items[lo])
        if hi != lo:
            out.append(items[hi])
        lo, hi = lo + 1, hi - 1
    return out


def _order(shown: Sequence[_Shown]) -> list[int]:
    """Indices into ``shown``, most important first (see the module docstring)."""
    meaningful = [i for i, item in enumerate(shown) if item.text.strip()]
    errors = _from_both_ends([i for i, item in enumerate(shown) if item.level == "error"])
    under: dict[int, list[int]] = {}  # an error's line number -> its detail records
    for i, item in enumerate(shown):
        if item.level == "context" and item.line.parent is not None:
            under.setdefault(item.line.parent, []).append(i)
    detail = [i for e in errors for i in under.get(shown[e].line.n, ())]
    tiers: list[list[int]] = [
        list(reversed(meaningful[-3:])),  # how it ended: under the tightest budget, the end
        errors,
        detail,
        _from_both_ends([i for i, item in enumerate(shown) if item.level == "context"]),
        _from_both_ends([i for i, item in enumerate(shown) if item.level == "warning"]),
        list(reversed(meaningful[-20:])),
        meaningful[:5],
        _from_both_ends(meaningful),
        list(range(len(shown))),
    ]
    return list(dict.fromkeys(i for tier in tiers for i in tier))
