"""Fitting a tool's result into a token budget; what does not fit is spilled, complete.

Every result the MCP server or the middleware hands a client goes through here. A result
that fits the budget (and, for hybrid delivery, the inline threshold) goes as it is.
Otherwise the complete result is written to the spill store and what the client gets is
cut to fit, never in the middle of a line or an item:

- **text** (``fit_text``): its lines are read as ``agentout run`` reads output (errors
  and their detail, warnings, the ends, the rest folded) and ``pack`` keeps the most
  important whole lines within the exact budget, in the raw format ``run`` prints:
  verbatim, in order, each gap a marker naming the lines and how to page them
  (``read_output``, or ``agentout show`` for the Claude Code hook), one closing line.
- **a JSON value** (``fit_value``, for structured content): its largest list keeps its
  first whole items, or its largest string its first whole lines, then the next largest,
  until the serialised value fits, counted exactly.
- **lists of records** (``fit_records``, the text an agent reads): each list of objects
  packed as ``agentout fit`` packs a file (records at the richest view that fits, terser
  views and cut strings before any record is left out, in the records format: a line
  a record, values as compact JSON, no indentation), the lists sharing the budget
  fairly, each saying how many of its items it shows.

Nothing here knows MCP: ``Limits`` is a call's budget, the functions fit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from agentout.deliver.hybrid import resolve_threshold
from agentout.formats._memo import remembered
from agentout.pack import pack
from agentout.records import Result
from agentout.store.spill import SpillError, SpillRef, SpillStore
from agentout.tokens import Tokenizer, count_until, get_tokenizer
from agentout.tokens.probe import gallop

__all__ = [
    "DEFAULT_MAX_TOKENS",
    "MAX_TOKENS",
    "MIN_TOKENS",
    "SPILL_URI",
    "Cut",
    "Fitted",
    "Limits",
    "compact_json",
    "fit_records",
    "fit_text",
    "fit_value",
    "record_lists",
    "short_ref",
    "spill_uri",
]

# Claude Code warns over 10,000 tokens; 5,000 leaves room for a client whose tokenizer
# counts more than o200k does, and for a result shown both as text and as structured data.
DEFAULT_MAX_TOKENS = 5000
MIN_TOKENS = 200  # the line naming the complete result takes about 60
MAX_TOKENS = 200_000
SPILL_URI = "agentout://spill/"
_LONG_STRING = 32  # a string this short is never cut: the marker would cost about as much
_MAX_CUTS = 64


def spill_uri(ref: SpillRef) -> str:
    return SPILL_URI + ref.ref


def compact_json(value: Any) -> str:
    """JSON as a client receives and shows structured content: compact, UTF-8 as is."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


@dataclass(frozen=True)
class Limits:
    """One call's budget: tokens (exact, by ``tokenizer``), the inline threshold in bytes,
    and the store that keeps what does not fit (the default store when None).

    For a caller outside agentout's server (the Claude Code hook): ``kept`` is the
    complete result, already in the store (every spill names it instead of writing);
    ``pager`` says how a note tells the agent to page it (``"mcp"``: the ``read_output``
    tool; ``"cli"``: ``agentout show``); ``redacted`` says the input's secrets were hidden
    already, in one pass over the whole text, so packing does not look again value by value.
    """

    max_tokens: int
    inline_threshold: int
    tokenizer: Tokenizer
    store: SpillStore | None = None
    kept: SpillRef | None = None
    pager: str = "mcp"
    redacted: bool = False

    @classmethod
    def of(
        cls,
        max_tokens: int | None = None,
        inline_threshold_bytes: int | None = None,
        tokenizer: str | Tokenizer | None = None,
        store: SpillStore | None = None,
        *,
        default_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> Limits:
        """``max_tokens`` else ``default_tokens``; the threshold as ``resolve_threshold``."""
        tokens = default_tokens if max_tokens is None else max_tokens
        if not MIN_TOKENS <= tokens <= MAX_TOKENS:
            raise ValueError(
                f"max_tokens must be between {MIN_TOKENS} and {MAX_TOKENS}, got {tokens}"
            )
        threshold = resolve_threshold(inline_threshold_bytes)
        return cls(tokens, threshold, get_tokenizer(tokenizer), store)

    def fits(self, text: str) -> bool:
        """Whether ``text`` is within the token budget (decided in O(budget))."""
        return count_until(text, self.max_tokens, self.tokenizer) is not None

    def inline(self, text: str) -> bool:
        """Whether ``text`` may go inline: within the threshold in bytes and the budget."""
        return len(_utf8(text)) <= self.inline_threshold and self.fits(text)

    def spill(self, text: str, *, kind: str, suffix: str) -> SpillRef:
        """Keep ``text`` complete in the store, named after its bytes (same text, same ref)."""
        if self.kept is not None:
            return self.kept
        store = self.store if self.store is not None else SpillStore.default()
        with store.open(kind=kind, suffix=suffix, by_content=True) as writer:
            writer.write(_utf8(text))
            return writer.commit()

    def try_spill(self, text: str, *, kind: str, suffix: str) -> tuple[SpillRef | None, str | None]:
        """``spill``, or (None, why) when the store cannot take it: the caller says so."""
        try:
            return self.spill(text, kind=kind, suffix=suffix), None
        except (OSError, SpillError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            return None, f"the complete result could not be kept: {reason}"


# -- text --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fitted:
    """What the client gets (``text``), and the spilled complete text if there is one."""

    text: str
    ref: SpillRef | None = None
    warning: str | None = None


def short_ref(ref: str) -> str:
    """The 16 hex digits that name a spilled file (what ``agentout show`` takes)."""
    return ref.rsplit(".", 1)[0].rsplit("-", 1)[-1]


def fit_text(text: str, limits: Limits, *, kind: str = "mcp", hybrid: bool = True) -> Fitted:
    """``text`` as it is if it fits (and, with ``hybrid``, is within the inline threshold);
    else spilled complete, and the lines that matter, read as ``agentout run`` reads
    output (``agentout.read.trouble``: errors with their detail, warnings, how it began and
    ended, the rest folded), kept whole within ``limits.max_tokens`` in the raw format:
    verbatim, in order, each gap a marker naming the lines, one closing line.

    Raises ``ValueError`` only if the budget cannot hold even the line naming the file.
    """
    if limits.fits(text) and (not hybrid or len(_utf8(text)) <= limits.inline_threshold):
        return Fitted(text)
    from agentout.formats.raw import CLI, MCP, RawFormat
    from agentout.read.digest import digest
    from agentout.read.trouble import Scan

    ref, warning = limits.try_spill(text, kind=kind, suffix=".txt")
    data = _utf8(text)
    scan = Scan()
    scan.feed(data)
    found = digest(scan.finish(), lambda: (data,))
    header: dict[str, Any] = {"lines": found.lines, "warning": warning}
    if ref is not None:
        header["ref"] = short_ref(ref.ref) if limits.pager == "cli" else ref.ref
    form = RawFormat(CLI if limits.pager == "cli" else MCP)
    packed = pack(
        Result.of(found.records, header),
        format=form,
        max_tokens=limits.max_tokens,
        tokenizer=limits.tokenizer,
        order=found.order,
        redact=not limits.redacted,
    )
    if packed.stats.over_budget:  # not even one line fits beside the closing line: it alone
        packed = pack(
            Result.of([], header),
            format=form,
            max_tokens=limits.max_tokens,
            tokenizer=limits.tokenizer,
            redact=not limits.redacted,
        )
        if not limits.fits(packed.text):
            raise ValueError(
                f"max_tokens={limits.max_tokens} cannot hold even the reference to the "
                "complete result; give a larger budget"
            )
    return Fitted(packed.text, ref, warning)


# -- JSON values ---------------------------------------------------------------------------

Path = tuple[str | int, ...]


@dataclass(frozen=True)
class Cut:
    """Where a value was shortened: ``kept`` of ``total`` items, lines or characters."""

    path: str
    kept: int
    total: int
    unit: str

    def describe(self) -> str:
        where = self.path or "the value"
        return f"{where}: {self.kept} of {self.total} {self.unit}"


@dataclass(frozen=True)
class _Candidate:
    size: int
    path: Path
    node: list[Any] | str

    @property
    def key(self) -> tuple[int, str]:
        return (-self.size, _pointer(self.path))


def _pointer(path: Path) -> str:
    return "/".join(str(part) for part in path)


def _candidates(node: Any, path: Path, out: list[_Candidate]) -> int:
    """The approximate serialised size of ``node``; its cuttable parts appended to ``out``."""
    if isinstance(node, str):
        if len(node) > _LONG_STRING:
            out.append(_Candidate(len(node) + 2, path, node))
        return len(node) + 2
    if isinstance(node, list):
        size = 2 + sum(_candidates(item, (*path, i), out) + 1 for i, item in enumerate(node))
        if node:
            out.append(_Candidate(size, path, node))
        return size
    if isinstance(node, dict):
        return 2 + sum(
            len(str(key)) + 4 + _candidates(value, (*path, str(key)), out)
            for key, value in node.items()
        )
    return len(compact_json(node))


def _replace(node: Any, path: Path, new: Any) -> Any:
    """A copy of ``node`` with the part at ``path`` replaced (copying only along the path)."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(node, list):
        assert isinstance(head, int)
        copy = list(node)
        copy[head] = _replace(node[head], rest, new)
        return copy
    assert isinstance(node, dict)
    return {
        key: (_replace(value, rest, new) if key == head else value) for key, value in node.items()
    }


def _largest(fits: Callable[[int], bool], total: int) -> int | None:
    """The largest k < total with fits(k), searching up from 0 so that no probe costs
    much more than the answer (probes render k items); None if fits(0) is false."""
    if total <= 0 or not fits(0):
        return None
    return gallop(fits, 0, total - 1)


def _shortened(candidate: _Candidate, kept: int) -> Any:
    node = candidate.node
    if isinstance(node, list):
        return node[:kept]
    lines = node.split("\n")
    if len(lines) > 1:
        more = len(lines) - kept
        marker = f"… ({more} more line{'' if more == 1 else 's'})"
        return "\n".join([*lines[:kept], marker])
    return node[:kept] + f"… (+{len(node) - kept} chars)"


def _units(candidate: _Candidate) -> tuple[int, str]:
    node = candidate.node
    if isinstance(node, list):
        return len(node), "items"
    lines = node.count("\n") + 1
    return (lines, "lines") if lines > 1 else (len(node), "chars")


def fit_value(
    value: Any, limits: Limits, *, dumps: Callable[[Any], str] = compact_json
) -> tuple[Any, list[Cut]] | None:
    """``value`` shortened until ``dumps(value)`` is within ``limits.max_tokens``.

    The largest list keeps its first whole items (the largest string its first whole
    lines, or characters if it has one line, with a marker saying how much more), then
    the next largest, and so on. Returns the value and what was cut; None when even
    every list emptied and every long string cut does not fit (the scalars alone are
    over budget).
    """

    def whole_fits(candidate: Any) -> bool:
        return limits.fits(dumps(candidate))

    if whole_fits(value):
        return value, []
    cuts: list[Cut] = []
    done: set[Path] = set()  # a part is cut once; what is left of it is not cut again
    current = value
    for _ in range(_MAX_CUTS):
        found: list[_Candidate] = []
        _candidates(current, (), found)
        found = [c for c in found if c.path not in done]
        if not found:
            return None
        candidate = min(found, key=lambda c: c.key)
        total, unit = _units(candidate)
        base = current

        def fits(kept: int, candidate: _Candidate = candidate, base: Any = base) -> bool:
            return whole_fits(_replace(base, candidate.path, _shortened(candidate, kept)))

        kept = _largest(fits, total)
        current = _replace(base, candidate.path, _shortened(candidate, kept or 0))
        cuts.append(Cut(_pointer(candidate.path), kept or 0, total, unit))
        done.add(candidate.path)
        if kept is not None:
            return current, cuts
    return None


# -- lists of records ----------------------------------------------------------------------


def record_lists(value: Any) -> list[tuple[str, list[Any]]]:
    """The lists of objects in a tool's value, with their keys: the value itself when it
    is one (or the SDK's ``{"result": [...]}``), else its keys that hold one."""
    if isinstance(value, dict) and list(value) == ["result"]:
        value = value["result"]
    if _objects(value):
        return [("", value)]
    if isinstance(value, dict):
        return [(str(key), item) for key, item in value.items() if _objects(item)]
    return []


def _objects(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def _records(items: list[Any], key: str, most: int) -> Result:
    """One list of objects as records: built once, packed as often as its share changes.

    Only the first ``most`` are made, the rest counted (``total``): a record costs at
    least a token, so no budget of ``most`` tokens shows more of them."""
    from agentout.read.data import object_record

    header = {"list": key} if key else {}
    shown = [object_record(item) for item in items[: most + 1]]
    return Result.of(shown, header=header, total=len(items))


def _packed(result: Result, limits: Limits, room: int) -> str:
    return pack(
        result,
        format="records",
        max_tokens=max(room, 0),
        tokenizer=limits.tokenizer,
        redact=not limits.redacted,
    ).text


def fit_records(value: Any, limits: Limits, note: str) -> str | None:
    """The record lists of ``value`` packed within ``limits.max_tokens`` with ``note`` (a
    last line naming the complete result) after them; None when ``value`` holds none.

    Each list starts with an equal share of what the note and the value's other fields
    leave; what a list does not need goes to the lists that were cut, and the whole text
    is counted exactly at the end (a share is lowered until it fits).
    """
    lists = record_lists(value)
    if not lists:
        return None
    keys = {key for key, _ in lists}
    rest = {k: v for k, v in value.items() if k not in keys} if isinstance(value, dict) else {}
    rest.pop("result", None)
    head = compact_json(rest) + "\n" if rest else ""
    count = limits.tokenizer.count
    room = limits.max_tokens - count(note) - count(head)
    shares = [room // len(lists)] * len(lists)
    with remembered():  # every pack below renders the same records again
        results = [_records(items, key, limits.max_tokens) for key, items in lists]
        texts = [
            _packed(result, limits, share) for result, share in zip(results, shares, strict=True)
        ]
        spare = sum(share - count(text) for share, text in zip(shares, texts, strict=True))
        cut = [i for i, text in enumerate(texts) if " truncated=true " in _first_line(text)]
        if spare > 0 and cut:
            for i in cut:
                shares[i] += spare // len(cut)
                texts[i] = _packed(results[i], limits, shares[i])
        for _ in range(8):
            whole = head + "".join(texts) + note
            over = count(whole) - limits.max_tokens
            if over <= 0:
                return whole
            i = max(range(len(texts)), key=lambda j: count(texts[j]))
            shares[i] = count(texts[i]) - over - 1
            texts[i] = _packed(results[i], limits, shares[i])
    return None


def _first_line(text: str) -> str:
    return text.partition("\n")[0]
