"""The lines that matter in any output: every line a scan kept, the ones that matter first
(the generic reducer: what a command no reducer knows is cut to).

It works on a ``Scan`` of the output (so on output of any size, in bounded memory). Each
kept line is a record of its own (kind ``L``), in line order; runs of the same line, and
of the same few lines (a traceback printed 83 times over), are shown once with their
count, and warnings of one shape (``warning: unused variable ‘x’``, twelve hundred times)
once, the first of them, with the shape and how many more lines of the output have it.
That number is the output's, counted over all of its bytes (``agentout.read.shapes``),
never the scan's sample of it: with no way to count (the output is not at hand again,
or would take too long to count), nothing is folded by shape. ``order`` says which
matter most, so a budget leaves out the least important:

1. how it ended (its last line), so the tightest budget still shows the outcome;
2. every error line, then where each one is (a traceback's innermost ``File "x", line N``
   and its code), then the rest of each error's detail (the other frames, the
   ``File "x", line N`` above a ``SyntaxError``, the code and caret under it);
3. the outline of source code (each ``def``, ``class``, ``fn``, ``func``...), so a file
   over the budget shows every definition with its line before its body;
4. other detail, then the warnings;
5. how the output ended (its last lines), then began, lines of one shape said once;
6. everything else, in order: plain text gets as much of itself as the budget holds.

``gist`` is that order without its last tier, when the output has errors or warnings (more
lines of them than definitions: source code that speaks of errors is text): what a cut with
no budget of its own gives (a failing build's errors, not its chatter).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from agentout.read.shapes import Shape, count, count_lines, text_shape, word_shape
from agentout.read.trouble import Line, ScanResult
from agentout.records import Record

Source = Callable[[], Iterable[bytes]]
"""All of the output's bytes again, in order (from memory, or its stored file)."""

__all__ = ["FOLD_AT_LEAST", "Digest", "Source", "digest"]

FOLD_AT_LEAST = 5  # warnings of one shape shown once from this many on
_ENDING = 3  # the last lines, how the output ended, come first and are never folded
PLAIN_FOLD_AT_LEAST = 8  # and plain lines of one shape (a log's noise), from this many on
HEAD_SHOWN = 8  # plain lines: how the output began
TAIL_SHOWN = 16  # and how it ended
TERSE_LINE_CHARS = 400  # a longer line also has a terse view: its start and its end
_OUTLINE_TIER = 3  # the outline of source code, in _tiers
_MINED_AT_MOST = 5000  # warnings mined for shapes (Drain: ~25 µs a line)
BLOCK_AT_MOST = 40  # lines of a block whose copies in a row are shown once
# What varies between lines of one shape: numbers, and quoted or bracketed names.
_SHAPE_LETTERS = 8
_LOCATED = re.compile(r"\S:\d+:\d+: ")
_SHAPE = re.compile(r"\d+|‘[^’]*’|'[^']*'|\"[^\"]*\"|`[^`]*`")
# What varies between plain lines of one shape, each run of it shown as "*": numbers with
# their separators (times, dates, versions, sizes), hex ids, quoted names.
_VARYING = re.compile(
    r"(?<![0-9A-Za-z])(?=[0-9a-f]*\d)[0-9a-f]{6,}(?![0-9A-Za-z])|\b0x[0-9a-fA-F]+"
    r"|\d[\d\-:.,T/Z+]*|‘[^’]*’|'[^']*'|\"[^\"]*\"|`[^`]*`"
)
# A log record's marks: a time of day, or a level word where log formats put one.
_LOG_RECORD = re.compile(
    r"\d\d:\d\d:\d\d|\b(?:INFO|DEBUG|TRACE|NOTICE|INF|DBG|TRC|VERBOSE)\b"
    r"|\blevel[\"']?[=:]|^[IDV]\d{4} |^<\d{1,3}>"
)
# A definition in source code: Python, JavaScript/TypeScript, Go, Rust, Java/C#/Kotlin,
# Ruby, shell functions; its name right after the keyword.
_DEFINITION = re.compile(
    r"^[ \t]*(?:(?:export|default|public|private|protected|internal|static|final|abstract|"
    r"async|pub(?:\([a-z]+\))?|unsafe|override|open|sealed|data|inline)[ \t]+)*"
    r"(?:def|class|function|func|fn|struct|enum|trait|impl|interface|type|module|object|"
    r"record|macro_rules!)[ \t]+[A-Za-z_<(]"
)


@dataclass(frozen=True)
class Digest:
    """Records of the kept lines, in line order, the order they matter in, and how many
    lines the output had. ``gist``: the order without everything else, when the output
    has errors or warnings to find; None when it has none (plain text is all context).
    ``facts``: what a cut keeps first (how it ended, its errors and their detail, the
    outline of source code: each definition), whatever the output is."""

    records: list[Record]
    order: list[int]
    lines: int = 0
    gist: list[int] | None = None
    facts: list[int] | None = None  # what a cut keeps first, the outline of source included


@dataclass
class _Shown:
    """A record to be: its first line, how many lines it stands for, what it says;
    ``whole``: shown whole or not at all (a block of lines), never cut to a terse view."""

    line: Line
    last: int
    text: str
    level: str
    whole: bool = False


_LEVELS = ("error", "warning", "context", "info")  # the worst first


def digest(scan: ScanResult, source: Source | None = None) -> Digest:
    """See the module docstring. ``source``: the output's bytes again, for the number of
    lines of each shape; without it only output the scan kept whole is folded by shape."""
    warned = _warning_shapes(scan.lines)
    plain = _plain_shapes(scan.lines)
    counts = _exact([*warned, *plain], scan, source)
    items = _fold_blocks(_fold_repeats(_fold_shapes(scan.lines, warned, counts)))
    shown = _fold_plain(items, plain, counts)
    tiers = _tiers(shown)
    order = list(dict.fromkeys(i for tier in tiers for i in tier))
    troubled = sum(item.level in ("error", "warning") for item in shown)
    # source code that speaks of errors (a linter's patterns, tests of failures) has more
    # definitions than lines of trouble: it is text, and has no gist
    gist = None
    if troubled > len(tiers[_OUTLINE_TIER]):
        gist = list(dict.fromkeys(i for tier in tiers[:-1] for i in tier))
    facts = list(dict.fromkeys(i for tier in tiers[: _OUTLINE_TIER + 1] for i in tier))
    return Digest([_record(item) for item in shown], order, scan.total, gist, facts)


def _exact(shapes: list[Shape], scan: ScanResult, source: Source | None) -> dict[Shape, int]:
    """How many lines of the whole output have each shape; empty when that is not known
    (then nothing is folded by shape: no fold prints a number that is not the output's)."""
    if not shapes:
        return {}
    if scan.complete:  # every line is at hand, whole
        found: list[int] | None = count_lines(shapes, (line.text() for line in scan.lines))
    elif source is not None:  # no more than the scan read (a log may have grown since)
        found = count(shapes, _at_most(source(), scan.size))
    else:
        found = None
    return {} if found is None else dict(zip(shapes, found, strict=True))


def _at_most(chunks: Iterable[bytes], size: int) -> Iterator[bytes]:
    for chunk in chunks:
        if size <= 0:
            return
        yield chunk[:size] if len(chunk) > size else chunk
        size -= len(chunk)


def _record(item: _Shown) -> Record:
    """One line (or a folded run of them); a long one also has a terse view, its start
    and its end, so a budget that cannot hold it whole still shows where it went."""
    full = {"text": item.text, "n": item.line.n, "last": item.last}
    if len(item.text) <= TERSE_LINE_CHARS or item.whole:
        return Record.of(full, kind="L")
    head, tail = item.text[: TERSE_LINE_CHARS * 3 // 4], item.text[-TERSE_LINE_CHARS // 4 :]
    cut = len(item.text) - len(head) - len(tail)
    return Record.of({**full, "text": f"{head}… (+{cut} chars) …{tail}"}, full, kind="L")


def _first_of_each_shape(items: Sequence[tuple[int, _Shown]]) -> list[int]:
    """The indices of ``items`` whose shape (numbers and quoted names taken out) was not
    seen before: "In function 'f':" before each of 1,200 warnings counts once."""
    distinct: list[int] = []
    shapes: set[str] = set()
    for i, item in items:
        shape = _SHAPE.sub("#", item.text)
        if sum(c.isalpha() for c in shape) < _SHAPE_LETTERS:
            distinct.append(i)  # too little text to call two lines the same (seq's 1, 2)
        elif shape not in shapes:
            shapes.add(shape)
            distinct.append(i)
    return distinct


def _fold_repeats(lines: Sequence[Line | _Shown]) -> list[_Shown]:
    """Consecutive identical lines as one, with a count (a line kept only in part is never
    the same as another: what was not kept may differ)."""
    out: list[_Shown] = []
    run = 0
    said = ""  # the previous line's own text (its record's may have a count added)
    for item in lines:
        shown = item if isinstance(item, _Shown) else _Shown(item, item.n, item.text(), item.level)
        previous = out[-1] if out else None
        if (
            previous is not None
            and isinstance(item, Line)
            and not item.cut
            and not previous.line.cut
            and previous.last + 1 == item.n
            and said == shown.text
            and previous.level == shown.level
        ):
            run += 1
            previous.last = item.n
            times = "time" if run == 1 else "times"
            previous.text = f"{shown.text}\n[… the same line {run} more {times}]"
            continue
        run = 0
        said = shown.text if isinstance(item, Line) else item.line.text()
        out.append(shown)
    return out


def _fold_blocks(items: list[_Shown]) -> list[_Shown]:
    """A block of a few lines printed again and again in a row (a retry printing the same
    traceback 83 times) as its first copy, with the count of the copies after it."""
    keys = [(item.text, item.level, item.line.cut) for item in items]
    out: list[_Shown] = []
    i = 0
    while i < len(items):
        best: tuple[int, int] | None = None  # (lines of the block, copies in a row)
        for size in range(2, BLOCK_AT_MOST + 1):
            if i + 2 * size > len(items):
                break
            copies = 1
            while _same_block(items, keys, i, i + copies * size, size):
                copies += 1
            if copies > 1 and (best is None or size * copies > best[0] * best[1]):
                best = (size, copies)
        if best is None:
            out.append(items[i])
            i += 1
            continue
        size, copies = best
        block = items[i : i + size]
        end = items[i + size * copies - 1]
        times = "time" if copies == 2 else "times"
        marker = f"[… the same {size} lines {copies - 1} more {times}]"
        copied = sum(len(item.text) + 1 for item in block) * (copies - 1)
        if copied <= len(marker) + 1:  # the copies are shorter than saying so: kept
            out.append(items[i])
            i += 1
            continue
        text = "\n".join([*(item.text for item in block), marker])
        level = min((item.level for item in block), key=_LEVELS.index)
        out.append(_Shown(block[0].line, end.last, text, level, whole=True))
        i += size * copies
    return out


def _same_block(
    items: Sequence[_Shown], keys: Sequence[tuple[str, str, int]], first: int, at: int, size: int
) -> bool:
    """Whether ``items[at:at+size]`` repeats ``items[first:first+size]``, every line whole,
    and every line of both follows the one before it in the output."""
    if at + size > len(items):
        return False
    for j in range(size):
        if keys[at + j] != keys[first + j] or keys[at + j][2]:
            return False
    start = first + 1 if at == first + size else at  # the copies before were checked
    return all(items[k].line.n == items[k - 1].last + 1 for k in range(start, at + size))


def _plain_shapes(lines: Sequence[Line]) -> dict[Shape, list[int]]:
    """Plain log lines of one shape (a log's noise: ``12:00:03 INFO request 3 handled``),
    from ``PLAIN_FOLD_AT_LEAST`` of them among the lines kept (a line repeating the one
    before counts once), and the numbers of those lines. Only lines that read as log
    records (a time, a level) count: code, prose and lines of numbers alone (``seq``)
    are not folded."""
    groups: dict[tuple[str, ...], list[Line]] = {}
    parts_of: dict[tuple[str, ...], list[str]] = {}
    previous = ""
    for line in lines:
        text = line.text()
        repeated, previous = text == previous, text
        if line.level != "info" or line.cut or "*" in text or not _LOG_RECORD.search(text):
            continue
        parts: list[str] = []
        at = 0
        for found in _VARYING.finditer(text):
            parts += [text[at : found.start()], found.group()]
            at = found.end()
        parts.append(text[at:])
        if len(parts) == 1:
            continue  # nothing varies
        key = tuple(parts[::2])
        if key not in groups:
            groups[key], parts_of[key] = [], parts
        if not repeated:
            groups[key].append(line)
    shapes: dict[Shape, list[int]] = {}
    for key, members in groups.items():
        shape = text_shape(parts_of[key])
        letters = sum(c.isalpha() for c in "".join(key))
        if shape is not None and len(members) >= PLAIN_FOLD_AT_LEAST and letters >= _SHAPE_LETTERS:
            shapes[shape] = [line.n for line in members]
    return shapes


def _fold_plain(
    items: list[_Shown], shapes: dict[Shape, list[int]], counts: dict[Shape, int]
) -> list[_Shown]:
    """Plain log lines of one shape as the first of them, with the shape and how many more
    lines of the output have it; the last lines, how the output ended, stay lines."""
    meaningful = [i for i, item in enumerate(items) if item.text.strip()]
    ending = set(meaningful[-_ENDING:])
    at = {item.line.n: i for i, item in enumerate(items) if item.last == item.line.n}
    folded: set[int] = set()
    firsts: dict[int, _Shown] = {}
    for shape, numbers in shapes.items():
        total = counts.get(shape)
        members = [at[n] for n in numbers if n in at and at[n] not in ending]
        members = [i for i in members if i not in folded and i not in firsts]
        if total is None or not members or total < len(members):
            continue
        first = items[members[0]]
        text = f"{first.text}\n[… {total - 1} more like this: {shape.text}]"
        firsts[members[0]] = _Shown(first.line, first.last, text, first.level)
        folded.update(members[1:])
    if not firsts:
        return items
    return [firsts.get(i, item) for i, item in enumerate(items) if i not in folded]


def _warning_shapes(lines: Sequence[Line], level: str = "warning") -> dict[Shape, list[Line]]:
    """Lines of ``level`` of one shape (Drain's template, ``agentout.read.shapes``), from
    ``FOLD_AT_LEAST`` of them among the lines kept: each shape and those lines."""
    warnings = [line for line in lines if line.level == level and not line.cut]
    if len(warnings) < FOLD_AT_LEAST:
        return {}
    mined = warnings[:_MINED_AT_MOST]
    groups: dict[str, list[Line]] = {}
    for line, template in zip(mined, _shapes(mined), strict=True):
        groups.setdefault(template, []).append(line)
    shapes: dict[Shape, list[Line]] = {}
    for template, group in groups.items():
        shape = word_shape(template)
        if shape is None or sum(c.isalpha() for c in template.replace("<*>", "")) < _SHAPE_LETTERS:
            continue
        members = [line for line in group if shape.matches(line.text())]
        if len(members) >= FOLD_AT_LEAST:
            shapes[shape] = members
    return shapes


def _fold_shapes(
    lines: list[Line], shapes: dict[Shape, list[Line]], counts: dict[Shape, int]
) -> list[Line | _Shown]:
    """Lines of one shape (and the detail under them) as the first of them, with the shape
    and how many more lines of the output have it."""
    folded: set[int] = set()  # line numbers left out: members after the first, and detail
    firsts: dict[int, _Shown] = {}
    for shape, group in shapes.items():
        total = counts.get(shape)
        if total is None or total < len(group):
            continue
        first = group[0]
        text = f"{first.text()}\n[… {total - 1} more like this: {shape.text}]"
        firsts[first.n] = _Shown(first, first.n, text, first.level)
        folded.update(line.n for line in group[1:])
    if not folded and not firsts:
        return list(lines)
    out: list[Line | _Shown] = []
    skipping = False
    for line in lines:
        if line.level == "warning":
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


def _location(shown: Sequence[_Shown], detail: Sequence[int]) -> list[int]:
    """Of an error's detail (indices into ``shown``), the lines that say where it is: a
    traceback's innermost ``File "x", line N`` and the code under it, else its first line."""
    from agentout.read.trouble import FILE_LINE

    frames = [k for k, i in enumerate(detail) if FILE_LINE.match(shown[i].text)]
    if frames:
        return list(detail[frames[-1] : frames[-1] + 2])
    return list(detail[:1])


def _tiers(shown: Sequence[_Shown]) -> list[list[int]]:
    """Indices into ``shown`` by tier, most important first (see the module docstring);
    the last tier is everything, in order."""
    from agentout.read.trouble import is_detail

    meaningful = [i for i, item in enumerate(shown) if item.text.strip()]
    errors = _from_both_ends([i for i, item in enumerate(shown) if item.level == "error"])
    # an error that says where it is (file:line:col: error: ...) needs no code frame under it
    located = {
        item.line.n for item in shown if item.level == "error" and _LOCATED.search(item.text)
    }
    under: dict[int, list[int]] = {}  # an error's line number -> its detail records
    for i, item in enumerate(shown):
        parent = item.line.parent
        frame = parent in located and is_detail(item.text)
        if item.level == "context" and parent is not None and not frame:
            under.setdefault(parent, []).append(i)
    details = [under.get(shown[e].line.n, []) for e in errors]
    where = [i for found in details for i in _location(shown, found)]
    detail = [*where, *(i for found in details for i in found)]
    outline = [i for i, item in enumerate(shown) if _DEFINITION.match(item.text)]
    plain = [
        (i, item)
        for i, item in enumerate(shown)
        if item.level == "info" and item.text.strip() and not is_detail(item.text)
    ]
    distinct = _first_of_each_shape(plain)
    tiers: list[list[int]] = [
        meaningful[-1:],  # how it ended: the tightest budget keeps the last line
        errors,
        detail,  # where each error is first, then the rest of each one's detail
        outline,
        _from_both_ends([i for i, item in enumerate(shown) if item.level == "context"]),
        _from_both_ends([i for i, item in enumerate(shown) if item.level == "warning"]),
        list(reversed(meaningful[-_ENDING:])),
        list(reversed(distinct[-TAIL_SHOWN:])),
        distinct[:HEAD_SHOWN],
        list(range(len(shown))),  # the rest, in order
    ]
    return tiers
