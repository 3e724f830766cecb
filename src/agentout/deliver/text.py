"""Text output for an agent: as printed when it fits, reduced when a reducer knows it,
cut to what matters when it does not fit, and never larger than it was.

One envelope for ``agentout run``, ``fit`` on text and logs, and the MCP tools (see
``agentout.formats.raw``). ``deliver_output`` takes a finished ``Capture``:

The inline threshold of a command's output is, unless given (``--inline-threshold``,
``$AGENTOUT_INLINE_THRESHOLD``), what the client shows inline (``client_limit``: Claude
Code's Bash tool shows 30,000 characters, or ``$BASH_MAX_OUTPUT_LENGTH``): output the client
would show whole is never cut to a sliver.

1. Small output (at most the inline threshold) that fits the budget is given whole:
   exactly as printed (terminal escapes and redraws resolved), plus ``[exit N]`` when
   the status is not 0. Nothing is stored, unless some of it is not UTF-8 (shown as
   U+FFFD): then the bytes are kept as they came, and the closing line names them. No
   tokenizer is loaded when the byte count alone shows it fits (a token is at least
   one byte).
2. A reducer for the command gives its compact form; it is used when it is smaller than
   the output (by a margin, so it never costs more tokens) and the output itself is
   kept in the store, named on the closing line.
3. What does not fit is packed within the budget (``max_tokens``, else the inline
   threshold in characters): the lines or blocks that matter most, whole, in order,
   each gap a marker with the command that shows it, and the exact token count. With no
   budget given, never more than the client would show past its inline limit (a preview
   of ``CUT_CONTEXT_CHARS``): plain text that much; a reduced form every record at its
   tersest view (the facts) and that much context; output with errors or warnings the
   digest's gist (``agentout.read.digest``), not its chatter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from agentout.deliver.limits import (
    CLIENT_LIMIT_CHARS,
    CUT_CONTEXT_CHARS,
    client_limit,
    text_threshold,
)
from agentout.deliver.whole import lines_of as _lines
from agentout.deliver.whole import whole_text as _whole_text
from agentout.frozen import Frozen
from agentout.reducers import REDUCE_MAX_BYTES, Output, Reduced, Reducer, command_words
from agentout.reducers.complete import proven
from agentout.store.capture import Capture

if TYPE_CHECKING:  # imported where used: small output is given without any of them
    from agentout.formats import Format
    from agentout.pack import Packed
    from agentout.records import Record
    from agentout.redact import Redactor
    from agentout.store.spill import SpillRef
    from agentout.tokens import Tokenizer

__all__ = [
    "CLIENT_LIMIT_CHARS",
    "REDUCED_AT_MOST",
    "TextDelivery",
    "TextSettings",
    "client_limit",
    "deliver_output",
    "short_ref",
    "text_threshold",
]

# A reduced form is used only when it has at most this share of the output's bytes, and,
# past _COUNTED_PAST of them, when it also costs fewer tokens: fewer bytes can still be
# more tokens (tsc's 5 findings, 148 tokens of markers and paths against 151 as printed).
# Below that share no tokenizer is loaded: a reduced form half the size of the output in
# bytes is far below it in tokens too.
REDUCED_AT_MOST = 0.85
_COUNTED_PAST = 0.5
# A cut of output up to this many times the threshold is weighed against the output as
# printed before anything is stored (past it, the output is surely the larger).
_PROBED_PAST = 4
Form = Literal["whole", "reduced", "cut"]


class TextSettings(Frozen):
    """The budget and the form of a text delivery. ``own``: a prefix that marks
    agentout's own lines in the output (a task runner's recipe lines, reduced by
    agentout's line shell): taken off, and the line left as it is."""

    threshold: int
    max_tokens: int | None
    max_chars: int | None
    format: str | Format
    tokenizer: str | Tokenizer | None
    own: str | None

    def __init__(
        self,
        threshold: int,
        max_tokens: int | None = None,
        max_chars: int | None = None,
        format: str | Format = "raw",
        tokenizer: str | Tokenizer | None = None,
        own: str | None = None,
    ) -> None:
        self._set(
            threshold=threshold, max_tokens=max_tokens, max_chars=max_chars, format=format,
            tokenizer=tokenizer, own=own,
        )  # fmt: skip

    @property
    def raw(self) -> bool:
        return (self.format if isinstance(self.format, str) else self.format.name) == "raw"


class TextDelivery(Frozen):
    """What the agent is handed, and an account of it for the person and the ledger.
    ``packed``: when the budget decided (or a data format was asked); ``secrets``: how
    many were hidden from the agent (agentout.redact); ``raw``: the output as captured,
    when it was not stored (small and given whole or in a complete reduced form), so the
    ledger counts what the agent would have read without agentout."""

    text: str
    form: Form
    ref: SpillRef | None
    warning: str | None
    packed: Packed | None
    raw_bytes: int
    raw_lines: int
    reducer: str | None
    secrets: int
    raw: str | None

    def __init__(
        self,
        text: str,
        form: Form,
        ref: SpillRef | None = None,
        warning: str | None = None,
        packed: Packed | None = None,
        raw_bytes: int = 0,
        raw_lines: int = 0,
        reducer: str | None = None,
        secrets: int = 0,
        raw: str | None = None,
    ) -> None:
        self._set(
            text=text, form=form, ref=ref, warning=warning, packed=packed,
            raw_bytes=raw_bytes, raw_lines=raw_lines, reducer=reducer, secrets=secrets, raw=raw,
        )  # fmt: skip

    @property
    def tokens(self) -> int | None:
        """The exact count when the delivery was packed; None when it was given whole."""
        return None if self.packed is None else self.packed.stats.tokens


def short_ref(ref: SpillRef | str) -> str:
    """The name ``agentout show`` takes: the 16 hex digits of the stored file's name (of a
    reference, or of the name itself)."""
    stem = (ref if isinstance(ref, str) else ref.ref).rsplit(".", 1)[0]
    return stem.rsplit("-", 1)[-1]


def _fits(text: str, settings: TextSettings, limit_chars: int | None) -> bool:
    if limit_chars is not None and len(text) > limit_chars:
        return False
    if settings.max_tokens is None or len(text.encode("utf-8")) <= settings.max_tokens:
        return True  # a token is at least one byte: no tokenizer needed
    from agentout.tokens import count_until, get_tokenizer

    return count_until(text, settings.max_tokens, get_tokenizer(settings.tokenizer)) is not None


def deliver_output(
    capture: Capture,
    settings: TextSettings,
    *,
    argv: Sequence[str] = (),
    exit_status: int = 0,
    header: Mapping[str, Any] | None = None,
    reducer: Reducer | None = None,
    redactor: Redactor | None = None,
) -> TextDelivery:
    """See the module docstring. ``header`` fields (exit, signal, error, secrets, cmd,
    duration...) go to the closing line (raw) or the header line (data formats).
    ``redactor``: the output was captured with its secrets (``--keep-secrets``), so the
    lines are redacted here, before anything is shown."""
    head: dict[str, Any] = dict(header or {})
    head.setdefault("exit", exit_status)
    if capture.warning:
        head["warning"] = capture.warning
    if capture.capped:  # past the store's cap: its head and tail are kept, and it says so
        head["capped"] = capture.capped
    # read whole up to a few times the threshold: a cut of output near it may be no smaller
    # than the output as printed, which is then what is given (never larger than raw)
    window = _PROBED_PAST * settings.threshold
    data = capture.whole(max(window, REDUCE_MAX_BYTES if reducer else 0))
    if data is not None and redactor is not None:
        data, hidden = redactor.redact_bytes(data)
        if hidden.total:
            head["secrets"] = head.get("secrets", 0) + hidden.total
    lines = _lines(data, settings.own) if data is not None else None
    ended = data is None or not data or data.endswith(b"\n")  # the last line, as printed

    small = data is not None and len(data) <= settings.threshold
    # --mode file: kept whatever its size (past the threshold, output is in the store anyway)
    stored = capture.writer is not None and small

    # 1. a reducer's compact form, when it is smaller and fits
    reduced: Reduced | None = None
    room = settings.threshold  # what a reduced form may take, whole or cut (_room)
    shorter = False  # the reduced form is smaller than the output
    if reducer is not None and lines is not None:
        words = command_words(argv)
        reduced = reducer.reduce(Output(tuple(argv), words, lines, exit_status))
        reduced = proven(reduced, lines)  # "complete" only when it keeps every line
        if reduced is not None:
            room = _room(settings, reduced.records, small)
    # the output as printed, when it is at hand: what any other form must be smaller than
    # (binary data is never shown so, unless asked, --mode inline: its escapes would cost
    # more than the bytes, and say nothing an agent can read)
    read = max(settings.threshold, REDUCE_MAX_BYTES if reducer else 0)  # as ever, not window
    binary = data is not None and len(data) <= read and not capture.keep_in_memory
    binary = binary and _binary(data or b"")
    as_printed = None
    if settings.raw and lines is not None and not binary:
        as_printed = _whole_text(lines, head, ended=ended)
    if reduced is not None and as_printed is not None:
        assert data is not None
        found = _try_reduced(capture, reduced, settings, room, head, (data, as_printed), reducer)
        chosen, shorter = found
        if chosen is not None:
            return chosen
    # small output as printed, and whether it fits (worked out once, for 1 and 2)
    printed = as_printed if small else None
    printed_fits = printed is not None and _fits(printed, settings, settings.max_chars)
    if reduced is not None and printed_fits and not settings.own and not shorter:
        reduced = None  # the reducer did not shorten it, and it fits: as printed
    # (one that does not fit is still cut in the reducer's form: every fact at its tersest)

    # 2. small, and it fits: as printed
    if printed_fits:
        assert lines is not None
        assert data is not None
        # bytes that are not UTF-8 are shown replaced: the store keeps them as they were
        return _whole(capture, lines, head, stored or not _utf8(data), ended)

    # 3. cut to what matters, within the budget, unless that is no smaller than the output
    # as printed (a budget too small for anything but a line and the closing one)
    records, order, budget_chars = _cut_records(capture, settings, reduced, room, binary)
    if binary:  # one marker for all of it, the closing line naming the stored bytes
        head["binary"] = capture.size
    near = data is not None and len(data) <= _PROBED_PAST * settings.threshold
    if as_printed is not None and near and not stored:  # learnt before anything is kept
        probe = _packed(capture, settings, records, order, budget_chars, head, "0" * 16)
        if not _smaller(probe.text, probe.stats.tokens, as_printed, settings):
            assert lines is not None
            return _whole(capture, lines, head, stored, ended)
    ref = capture.commit()
    packed = _packed(capture, settings, records, order, budget_chars, head, None, ref)
    if (
        as_printed is not None
        and not stored
        and not _smaller(packed.text, packed.stats.tokens, as_printed, settings)
    ):  # the reference's own tokens tipped it (the store keeps the output, unnamed)
        assert lines is not None
        return _whole(capture, lines, head, False, ended)
    name = None if reducer is None or reduced is None else reducer.name
    return _delivered(
        capture, packed.text, "cut", packed=packed, reducer=name, secrets=_hidden(head)
    )


def _cut_records(
    capture: Capture, settings: TextSettings, reduced: Reduced | None, room: int, binary: bool
) -> tuple[Sequence[Record], Sequence[int] | None, int | None]:
    """The records a cut packs, the order they matter in, and the characters it may take.
    With no budget given, the cut follows the client, which shows a preview of output past
    what it shows inline (Claude Code: its first 2,000 characters): output with facts to
    find (errors, a reducer's records, source code's outline) gives them and that much
    context, plain text that much (``CUT_CONTEXT_CHARS``); the rest is a page away in the
    store."""
    follows_client = settings.max_tokens is None and settings.max_chars is None
    budget_chars = settings.threshold if follows_client else settings.max_chars
    if binary:  # one marker for all of it, the closing line naming the stored bytes
        return [], [], budget_chars
    if reduced is not None:
        return reduced.records, reduced.order, room if follows_client else budget_chars
    from agentout.read.digest import digest

    found = digest(capture.scan().finish(), capture.source())
    if follows_client and found.gist is not None:  # a failing build's errors, not its chatter
        return found.records, found.gist, budget_chars
    if follows_client:  # text: its facts (source code's outline too), then a preview's worth
        facts = [found.records[i] for i in found.facts or ()]
        return found.records, found.order, _room(settings, facts, small=False)
    return found.records, found.order, budget_chars


def _packed(
    capture: Capture,
    settings: TextSettings,
    records: Sequence[Record],
    order: Sequence[int] | None,
    budget_chars: int | None,
    head: dict[str, Any],
    probe: str | None,
    ref: SpillRef | None = None,
) -> Packed:
    """The cut packed, its closing line naming the stored output (``ref``), or a name as
    long (``probe``) to learn what it would cost before anything is kept."""
    from agentout.pack import pack
    from agentout.records import Result

    header = dict(head)
    if probe is not None:
        header["ref"] = probe
    elif ref is not None:
        header["ref"] = short_ref(ref)
    header["lines"] = capture.lines
    return pack(
        Result.of(records, header),
        format=settings.format,
        max_tokens=settings.max_tokens,
        max_chars=budget_chars,
        tokenizer=settings.tokenizer,
        order=order,
        redact=not capture.filters,  # hidden as it arrived: not looked for again, line by line
    )


def _smaller(text: str, tokens: int, printed: str, settings: TextSettings) -> bool:
    """Whether ``text`` (``tokens`` of it) costs fewer tokens than ``printed``, the output as
    printed; a token is at least one byte, so a long output needs no count."""
    if len(printed.encode("utf-8")) > tokens:
        from agentout.tokens import count_until, get_tokenizer

        return count_until(printed, tokens, get_tokenizer(settings.tokenizer)) is None
    return False


def _tokens_at_most(text: str, settings: TextSettings, exact: bool) -> int:
    """The tokens ``text`` costs; not ``exact``, it names a stored output as ``"0" * 16``,
    and the real name's 16 hex digits cost at most one token each, that one at least one."""
    from agentout.tokens import get_tokenizer

    return get_tokenizer(settings.tokenizer).count(text) + (0 if exact else 15)


def _try_reduced(
    capture: Capture,
    reduced: Reduced,
    settings: TextSettings,
    room: int,
    head: dict[str, Any],
    output: tuple[bytes, str],
    reducer: Reducer | None,
) -> tuple[TextDelivery | None, bool]:
    """The reducer's form whole, with the output stored, if it is smaller than the output
    as printed and it fits; and whether it is smaller (one that does not fit is then cut,
    not the output). ``output``: as captured, and as printed."""
    data, printed = output
    from agentout.formats.raw import FORMAT, RawFormat

    # the raw format asked for (its pager names the agentout the agent can start), else raw
    raw = settings.format if isinstance(settings.format, RawFormat) else FORMAT
    complete = reduced.complete and _utf8(data)  # nothing left out: nothing to store
    probe = {**head, "lines": capture.lines}
    if not complete:
        probe["ref"] = "0" * 16  # the real name is as long
    document = _document(reduced.records, probe)
    text = raw.render(document)
    size, printed_size = len(text.encode("utf-8")), len(printed.encode("utf-8"))
    if size > REDUCED_AT_MOST * printed_size:
        return None, False
    if size > _COUNTED_PAST * printed_size and not _smaller(
        text, _tokens_at_most(text, settings, complete), printed, settings
    ):
        return None, False  # fewer bytes, yet no fewer tokens (paths and numbers cost more)
    if len(text) > room or not _fits(text, settings, settings.max_chars):
        return None, True
    ref = None if complete else capture.commit()
    if ref is None:  # complete (or the store failed, which the warning says): no reference
        probe.pop("ref", None)
        capture.discard()
    else:
        probe["ref"] = short_ref(ref)
    text = raw.render(_document(reduced.records, probe))
    name = reducer.name if reducer is not None else None
    captured = data.decode("utf-8", "replace") if ref is None else None  # for the ledger
    delivered = _delivered(capture, text, "reduced", reducer=name, secrets=_hidden(head))
    return delivered.replace(raw=captured), True


def _whole(
    capture: Capture,
    lines: Sequence[str],
    head: dict[str, Any],
    stored: bool,
    ended: bool = True,
) -> TextDelivery:
    """As printed; stored too only when asked (``--mode file``), the closing line naming it."""
    if not stored:
        capture.discard()
        text = _whole_text(lines, head, ended=ended)
        printed = _whole_text(lines, {}, ended=ended)
        return _delivered(capture, text, "whole", secrets=_hidden(head)).replace(raw=printed)
    ref = capture.commit()
    if ref is not None:
        head = {**head, "ref": short_ref(ref)}
    whole = _whole_text(lines, head, ended=ended)
    return _delivered(capture, whole, "whole", secrets=_hidden(head))


def _room(settings: TextSettings, records: Sequence[Record], small: bool) -> int:
    """Characters a reduced form may take: the budget given, else the inline threshold;
    and when the output itself is past the threshold (the client would show a preview of
    it), its facts (every record at its tersest view, with a gap marker before it, as
    ``pack`` reckons them) and ``CUT_CONTEXT_CHARS`` of context."""
    if settings.max_chars is not None:
        return settings.max_chars
    if small or settings.max_tokens is not None:
        return settings.threshold
    from agentout.formats.raw import FORMAT, RawFormat

    raw = settings.format if isinstance(settings.format, RawFormat) else FORMAT
    each = 1 + raw.gap_allowance  # its line break, and a gap before it at worst
    facts = sum(len(str(record.tersest.get("text", ""))) + each for record in records)
    return min(settings.threshold, facts + CUT_CONTEXT_CHARS)


def _binary(data: bytes) -> bool:
    """Whether output is binary data rather than text: more than one byte in ten a control
    character no text uses (tab, newline, carriage return, escape and form feed aside). A
    NUL byte or two in text (``find -print0`` among other lines, a stray byte in a log)
    leave it text, shown with each NUL escaped (``\\u0000``)."""
    sample = data[: 1 << 16]
    controls = sum(sample.count(bytes([c])) for c in range(32) if c not in (9, 10, 12, 13, 27))
    return controls * 10 > len(sample)


def _utf8(data: bytes) -> bool:
    """Whether ``data`` is shown as it is: UTF-8 throughout (else what is not is shown as
    U+FFFD, and the bytes are kept in the store, named on the closing line)."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _hidden(head: Mapping[str, Any]) -> int:
    return int(head.get("secrets") or 0)


def _delivered(
    capture: Capture,
    text: str,
    form: Form,
    *,
    packed: Packed | None = None,
    reducer: str | None = None,
    secrets: int = 0,
) -> TextDelivery:
    return TextDelivery(
        text,
        form,
        ref=capture.ref,
        warning=capture.warning,
        packed=packed,
        raw_bytes=capture.size,
        raw_lines=capture.lines,
        reducer=reducer,
        secrets=secrets,
    )


def _document(records: Sequence[Record], header: Mapping[str, Any]) -> Any:
    """Every record at its fullest view: what the raw format renders when nothing is cut."""
    from agentout.records import Document, Stats

    picked = tuple((record, record.fullest) for record in records)
    stats = Stats(len(records), len(records), 0, 0, 0, "none", False)
    return Document(header, stats, picked, {}, tuple(range(len(records))))
