"""Packing: the one place a budget decides what an agent sees.

Records are walked in their given order (or by priority, with ``order``) and included
whole, never split:

1. forced records (status and summary lines) always, at their tersest view;
2. coverage: as many records as fit, each at its tersest view, stopping at the first
   that does not (so what is left out is always a contiguous tail, easy to page to);
3. detail: in order (by priority, with ``order``), each included record moves up to the
   richest view the disclosure level allows that the budget still has room for;
4. exact: the whole output is rendered and counted, the reported count being the count
   of that very text, header included. Steps 2 and 3 spend a ``Budget`` estimated from
   each record's rendered fragment; here the longest prefix of those steps whose exact
   count fits is kept (the full list first, else a binary search), and then further
   records are added while the exact count allows (galloping, then bisecting; under a
   character budget the search starts where the records' own text puts it). Either
   way it costs O(log n) renders, however far off the estimate was.

A budget is a ceiling, the envelope included. When not one record fits beside the
envelope (the header and its account, forced records, the summary), the envelope gets
leaner and the steps run again: first the source's optional header fields go and the
account leaves out what the rest implies (``lean``), then the reference (``ref``, the
summary that names the stored copy). Fields that are facts stay at every size: a
command's ``exit``, ``signal``, ``error``, ``warning``, ``secrets``, ``lines``, a
document's ``parts``, a stored file's ``records`` and ``size``. When no record fits at
any size, the fullest envelope that fits is the output; only an envelope that cannot fit
even at its barest is ``over_budget``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from agentout.errors import AgentoutError
from agentout.formats import Format, get_format
from agentout.formats._memo import recall, remembered
from agentout.pack.budget import Budget
from agentout.records import Document, Record, Result, Stats
from agentout.tokens import Tokenizer, count_until, get_tokenizer
from agentout.tokens.probe import bisect, gallop

__all__ = ["PRESETS", "Packed", "Preset", "pack"]

# Header and summary fields that say something happened: kept by every envelope.
_FACTS = frozenset(
    {
        "exit",
        "signal",
        "error",
        "warning",
        "secrets",
        "lines",
        "parts",
        "status",
        "records",
        "size",
        "binary",
        "held_open",  # reading stopped while a process still held the output open
        "capped",  # the store kept the output's head and tail only
    }
)
_REFERENCES = frozenset({"ref", "path"})  # kept by the lean envelope, left out by the barest
_ENVELOPES = 3  # full, lean, bare


@dataclass(frozen=True)
class Preset:
    max_records: int | None
    max_tokens: int | None


# As in TMKB's agent mode: an agent gets 3 records in 500 tokens, a person 10 with no limit.
PRESETS: dict[str, Preset] = {
    "agent": Preset(max_records=3, max_tokens=500),
    "verbose": Preset(max_records=10, max_tokens=None),
}


@dataclass(frozen=True)
class Packed:
    """The emitted text and the account of it; ``stats.tokens`` counts exactly ``text``."""

    text: str
    document: Document
    format: str

    @property
    def stats(self) -> Stats:
        return self.document.stats


_Step = tuple[Literal["include", "upgrade"], int, int]  # (what, record index, view)


class _Packer:
    def __init__(
        self,
        result: Result,
        fmt: Format,
        tokenizer: Tokenizer,
        max_tokens: int | None,
        max_chars: int | None,
        max_records: int | None,
        level: int | None,
        order: Sequence[int] | None = None,
    ) -> None:
        self.result = result
        self.fmt = fmt
        self.tokenizer = tokenizer
        self.max_tokens = max_tokens
        self.max_chars = max_chars
        self.level = level
        self.forced = [i for i, r in enumerate(result.records) if r.forced]
        free = [i for i, r in enumerate(result.records) if not r.forced]
        self.total = len(free) if result.total is None else max(result.total, len(free))
        self.by_priority = order is not None
        if order is not None:  # coverage walks by priority; output keeps the given order
            free = [i for i in dict.fromkeys(order) if not result.records[i].forced]
        self.candidates = free if max_records is None else free[: max(0, max_records)]
        self.candidate_set = set(self.candidates)
        self.chosen: dict[int, int] = {i: 0 for i in self.forced}  # record index -> view
        self.over_budget = False
        self.envelope = 0  # 0 full, 1 lean, 2 bare (see the module docstring)

    # -- measuring -------------------------------------------------------------------

    def cap(self, record: Record) -> int:
        top = len(record.views) - 1
        return top if self.level is None else max(0, min(self.level, top))

    def cost(self, text: str) -> tuple[int, int]:
        return self.tokenizer.count(text), len(text)

    def fits_exactly(self, text: str, tokens: int) -> bool:
        if self.max_chars is not None and len(text) > self.max_chars:
            return False
        return self.max_tokens is None or tokens <= self.max_tokens

    @property
    def unlimited(self) -> bool:
        return self.max_tokens is None and self.max_chars is None

    # -- rendering -------------------------------------------------------------------

    def document(self, tokens: int) -> Document:
        records = self.result.records
        order = sorted(self.chosen.items())
        picked = tuple((records[i], records[i].views[v]) for i, v in order)
        included = sum(1 for i in self.chosen if not records[i].forced)
        reduced = sum(
            1 for i, v in self.chosen.items() if not records[i].forced and v < self.cap(records[i])
        )
        omitted = self.total - included
        stats = Stats(
            total=self.total,
            included=included,
            omitted=omitted,
            reduced=reduced,
            tokens=tokens,
            tokenizer=self.tokenizer.name,
            truncated=omitted > 0 or reduced > 0,
            over_budget=self.over_budget,
            lean=self.envelope > 0,
        )
        indices = tuple(i for i, _ in order)
        header, summary = self.result.header, self.result.summary
        if self.envelope:
            kept = _FACTS | (_REFERENCES if self.envelope == 1 else frozenset())
            header = {k: v for k, v in header.items() if k in kept}
            if self.envelope > 1:
                summary = {k: v for k, v in summary.items() if k in _FACTS}
        return Document(header, stats, picked, summary, indices)

    def render(self) -> tuple[str, Document]:
        """Render with the exact token count of the very text rendered.

        The count appears in the text, so it is a fixed point. When the number is its own
        pre-token (true of the built-in tokenizers), count(text) = rest + count(number):
        one render gives ``rest`` and ``predict`` finds the fixed point, which a second
        render confirms. Otherwise a short search over nearby numbers finds one.
        """
        guess = 0
        tried: set[int] = set()
        for _ in range(64):
            tried.add(guess)
            document = self.document(guess)
            text = self.fmt.render(document)
            tokens = self.tokenizer.count(text)
            if tokens == guess:
                return text, document
            guess = self.predict(guess, tokens)
            if guess in tried:  # the prediction is off for this tokenizer: walk upward
                guess = max(tried) + 1
        raise AgentoutError(
            f"tokenizer {self.tokenizer.name}: no number n makes the output count n tokens"
        )

    def predict(self, guess: int, tokens: int) -> int:
        """The smallest n with rest + count(str(n)) == n, if the count is context-free."""
        rest = tokens - self.tokenizer.count(str(guess))
        for width in range(0, 64):
            if self.tokenizer.count(str(rest + width)) == width:
                return rest + width
        return tokens

    # -- the four steps --------------------------------------------------------------

    def run(self) -> tuple[str, Document]:
        records = self.result.records
        if self.unlimited:
            for i in (*self.candidates, *self.forced):
                self.chosen[i] = self.cap(records[i])
            return self.render()
        forced = dict(self.chosen)  # the forced records, tersest
        empty: tuple[str, Document] | None = None  # an envelope that fits, with no record
        for envelope in range(_ENVELOPES):
            self.envelope, self.chosen = envelope, dict(forced)
            fitted = self.fit()
            if fitted is None:
                continue
            if fitted[1].stats.included or not self.candidates:
                return fitted
            empty = empty or fitted
        if empty is not None:  # no record fits at any size: the fullest envelope that does
            return empty
        self.envelope, self.chosen, self.over_budget = _ENVELOPES - 1, dict(forced), True
        return self.render()

    def fit(self) -> tuple[str, Document] | None:
        """Steps 2 to 4 within the current envelope; None if the envelope alone does not fit."""
        records = self.result.records
        base = dict(self.chosen)  # the forced records, tersest
        base_text, base_document = self.render()
        if not self.fits_exactly(base_text, base_document.stats.tokens):
            return None
        tokens_left, chars_left = self.rooms(base_text)
        steps: list[_Step] = []

        def spend(tokens: int, chars: int) -> bool:
            if tokens_left.would_exceed(tokens) or chars_left.would_exceed(chars):
                return False
            tokens_left.consume(tokens)
            chars_left.consume(chars)
            return True

        for i in self.candidates:  # coverage
            if not spend(*self.view_cost(i, 0)):
                break
            self.chosen[i] = 0
            steps.append(("include", i, 0))

        for i in self.detail_order():  # detail
            now_tokens, now_chars = self.view_cost(i, self.chosen[i])
            for view in range(self.cap(records[i]), self.chosen[i], -1):
                left = tokens_left.remaining
                most = None if left is None else now_tokens + left
                tokens, chars = self.view_cost(i, view, most)
                if spend(max(0, tokens - now_tokens), max(0, chars - now_chars)):
                    self.chosen[i] = view
                    steps.append(("upgrade", i, view))
                    break

        # exact: the longest prefix of those steps whose whole render fits
        fitting = self.longest_fitting(lambda m: self.replay(base, steps[:m]), len(steps))
        if fitting is None:
            return None
        self.replay(base, steps[:fitting])
        return self.refill()

    def detail_order(self) -> list[int]:
        """The records to give richer views, in turn: in their order, or, with a priority
        order, the forced ones and then the rest by priority (an error's whole message
        before the lines around it)."""
        if not self.by_priority:
            return sorted(self.chosen)
        forced = sorted(i for i in self.chosen if i not in self.candidate_set)
        return [*forced, *(i for i in self.candidates if i in self.chosen)]

    def replay(self, base: dict[int, int], steps: Sequence[_Step]) -> None:
        self.chosen = dict(base)
        for _, index, view in steps:
            self.chosen[index] = view

    def longest_fitting(self, apply: Callable[[int], None], most: int) -> int | None:
        """The largest m <= most for which the state ``apply(m)`` renders within budget.

        Each step only adds text, so fitting is monotone in m: try ``most`` (the usual
        answer, the estimate being good), then binary search. None if not even m=0 fits.
        """

        def fits(m: int) -> bool:
            apply(m)
            text, document = self.render()
            return self.fits_exactly(text, document.stats.tokens)

        if fits(most):
            return most
        found = bisect(fits, -1, most)  # m=-1 stands below every state: it "fits"
        return None if found < 0 else found

    def refill(self) -> tuple[str, Document]:
        """Add further records at their tersest view while the exact count allows.

        The coverage step stops on an estimate; this makes "as many as fit" exact. It
        gallops (1, 2, 4, ... more records) and then bisects, so it costs O(log n)
        renders however far off the estimate was.
        """
        records = self.result.records
        settled = dict(self.chosen)
        shown = sum(1 for i in settled if not records[i].forced)  # always a prefix
        rest = self.candidates[shown:]

        def apply(m: int) -> None:
            self.chosen = dict(settled)
            for i in rest[:m]:
                self.chosen[i] = 0

        def fits(m: int) -> bool:
            apply(m)
            text, document = self.render()
            return self.fits_exactly(text, document.stats.tokens)

        guess = self.chars_guess(rest)
        if guess and fits(guess):  # the guess fits: grow from it
            apply(gallop(fits, guess, len(rest)))
        elif guess:  # it does not: step down from it, then narrow
            apply(_gallop_down(fits, guess))
        else:
            apply(gallop(fits, 0, len(rest)))  # adding nothing fits: the state already did
        return self.render()

    def chars_guess(self, rest: Sequence[int]) -> int:
        """How many of ``rest`` a character budget alone would still hold, by their own
        text (the markers of the gaps between them left out, as records that follow one
        another have none): where the search starts, so a cut of thousands of short lines
        costs a few renders, not a doubling search from one. 0 without such a budget."""
        if self.max_chars is None or self.max_tokens is not None or not rest:
            return 0
        text, _ = self.render()
        room = self.max_chars - len(text)
        allowance = getattr(self.fmt, "gap_allowance", 0)  # in a fragment, for its gap
        m = 0
        for i in rest:
            room -= self.view_cost(i, 0)[1] - allowance
            if room < 0:
                break
            m += 1
        return m

    def view_cost(self, index: int, view: int, most: int | None = None) -> tuple[int, int]:
        """``cost`` of a record's fragment at ``view``, worked out once per pack. With
        ``most`` (all the caller could spend), a fragment of more tokens is counted only
        that far and said to cost ``most + 1``: a large view that cannot fit is not counted
        to its end, and the caller's decision is the one the exact count gives."""
        record = self.result.records[index]
        what = f"cost {self.fmt.name} {self.tokenizer.name}"
        known: list[Any] = recall(what, record, record.views[view], list)  # tokens, chars, exact
        if known and (known[2] or (most is not None and most < known[0])):
            return known[0], known[1]
        text = self.fragment(index, view)
        if most is None:
            known[:] = [self.tokenizer.count(text), len(text), True]
        else:
            found = count_until(text, most, self.tokenizer)
            known[:] = [most + 1, len(text), False] if found is None else [found, len(text), True]
        return known[0], known[1]

    def fragment(self, index: int, view: int) -> str:
        record = self.result.records[index]
        return self.fmt.fragment(record, record.views[view])

    def rooms(self, base_text: str) -> tuple[Budget, Budget]:
        """What is left after the frame (header, forced records, summary): tokens, chars."""

        def room(limit: int | None, used: int, counter: Tokenizer) -> Budget:
            left = None if limit is None else max(0, limit - used)
            return Budget(left, buffer=0.0, tokenizer=counter)

        return (
            room(self.max_tokens, self.tokenizer.count(base_text), self.tokenizer),
            room(self.max_chars, len(base_text), _CHARACTERS),
        )


class _Characters:
    """Characters as a 'tokenizer', so a character budget is a Budget too."""

    name = "characters"

    def count(self, text: str) -> int:
        return len(text)


_CHARACTERS = _Characters()


def _gallop_down(fits: Callable[[int], bool], start: int) -> int:
    """Given not fits(start) and fits(0) (the state before), a value below ``start`` that
    fits while the next one up does not: try start-1, -2, -4, ..., then bisect."""
    bad, step = start, 1
    while True:
        probe = max(0, bad - step)
        if probe == 0 or fits(probe):  # 0, the state before, fits
            return bisect(fits, probe, bad)
        bad, step = probe, step * 2


def pack(
    result: Result,
    *,
    format: str | Format = "records",
    max_tokens: int | None = None,
    max_chars: int | None = None,
    max_records: int | None = None,
    level: int | None = None,
    tokenizer: str | Tokenizer | None = None,
    preset: str | None = None,
    order: Sequence[int] | None = None,
    redact: bool = True,
) -> Packed:
    """Fit ``result`` into a budget and render it; see the module docstring for how.

    ``preset`` (``agent`` or ``verbose``) supplies ``max_records`` and ``max_tokens``
    unless they are given. ``level`` caps the view index (0 = tersest; None = fullest).
    ``format="auto"`` packs every lossless candidate and keeps the one that shows the
    most records in the fewest tokens. ``order`` (record indices, most important first)
    makes coverage walk records by priority instead of position (``result.order`` when not
    given); the output keeps their given order, and what is left out is the least important
    rather than a tail.
    ``redact=False``: the caller hid the secrets of the whole input already, in one pass.
    """
    if preset is not None:
        if preset not in PRESETS:
            raise ValueError(f"unknown preset {preset!r}; known: {', '.join(PRESETS)}")
        chosen = PRESETS[preset]
        max_records = chosen.max_records if max_records is None else max_records
        max_tokens = chosen.max_tokens if max_tokens is None else max_tokens
    for name, value in (("max_tokens", max_tokens), ("max_chars", max_chars)):
        if value is not None and value < 0:
            raise ValueError(f"{name} must be >= 0, got {value}")
    if redact:
        result = _without_secrets(result)
    if order is None:
        order = result.order
    tok = get_tokenizer(tokenizer)
    fmt = get_format(format)
    candidates: Sequence[Format] = getattr(fmt, "candidates", lambda _r: [fmt])(result)
    best: Packed | None = None
    failure: ValueError | None = None
    for candidate in candidates:
        packer = _Packer(result, candidate, tok, max_tokens, max_chars, max_records, level, order)
        try:
            with remembered():  # each probe renders the same records again
                text, document = packer.run()
        except ValueError as exc:  # e.g. TOON refuses very deep nesting: try the others
            if len(candidates) == 1:
                raise
            failure = exc
            continue
        packed = Packed(text=text, document=document, format=candidate.name)
        if best is None or _better(packed, best):
            best = packed
    if best is None:
        assert failure is not None
        raise failure
    if fmt.name == "auto":
        best = replace(best, format=f"auto:{best.format}")
    return best


def _without_secrets(result: Result) -> Result:
    """Every value an agent is about to see with its secrets hidden (``agentout.redact``;
    ``AGENTOUT_REDACT=0`` turns it off), the header saying how many (``secrets=N``). Here,
    because everything agentout shows is packed: fit, records, notes, test reports, the
    MCP tools. Text that was hidden already as it arrived (``run``) has nothing left."""
    from agentout.redact import default_redactor

    redactor = default_redactor()
    if not redactor.enabled:
        return result
    from agentout.records import Lines

    hidden = 0
    records = []
    for record in result.records:
        if redactor.holds_none(record.views):
            records.append(record)
            continue
        views: list[Any] = []
        before = hidden
        for view in record.views:
            if isinstance(view, Lines):  # a note's N/S/B lines: each part, kinds kept
                parts = []
                for kind, fields in view.lines:
                    clean, found = redactor.redact_value(dict(fields))
                    hidden += found.total
                    parts.append((kind, clean))
                views.append(Lines(*parts))
                continue
            clean_view, found = redactor.redact_value(view)
            hidden += found.total
            views.append(clean_view)
        records.append(record if hidden == before else record.replace(views=tuple(views)))
    if not hidden:
        return result
    header = {**result.header, "secrets": result.header.get("secrets", 0) + hidden}
    return result.replace(records=tuple(records), header=header)


def _better(a: Packed, b: Packed) -> bool:
    """More records shown, then fewer tokens; ties keep the earlier candidate."""
    key_a = (-a.stats.included, a.stats.reduced, a.stats.tokens)
    key_b = (-b.stats.included, b.stats.reduced, b.stats.tokens)
    return key_a < key_b
