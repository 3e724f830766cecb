"""Tool results as MCP clients receive them: text, a resource_link per spilled file,
structured content, every channel within the call's budget.

Two entry points. ``to_result`` finishes a ``Reply`` of agentout's own tools, whose text
was already packed by a library call (hybrid delivery decided there): it only guards the
budget. ``fit_call_result`` budgets any ``CallToolResult`` a tool of another server
returns (the middleware): text blocks, structured content, and the text that merely
echoes the structured content (as the SDK writes it) regenerated from what was kept.

What the budget covers: the text blocks together count at most ``max_tokens``, and the
structured content, as compact JSON (what a client shows of it), at most ``max_tokens``
on its own; whichever a client shows the model fits. Images, audio and embedded
resources pass through as they are. When anything is cut, the complete result is in the
spill store, named in the text, in a ``resource_link`` block, in ``_meta["agentout"]``,
and (when the output schema allows it) in a ``_agentout`` key of the structured content.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcp.types import CallToolResult, ContentBlock, ResourceLink, TextContent

from agentout.mcp.fit import Cut, Fitted, Limits, compact_json, fit_text, fit_value, spill_uri
from agentout.store.spill import SpillRef
from agentout.tokens import Tokenizer, count_until

if TYPE_CHECKING:
    from agentout.deliver.hybrid import Delivery

__all__ = [
    "NOTE_KEY",
    "Reply",
    "agent_tokens",
    "fit_call_result",
    "link_tokens",
    "mime_type",
    "reserve",
    "resource_link",
    "to_result",
]

NOTE_KEY = "_agentout"
META_KEY = "agentout"
_MIME = {".jsonl": "application/jsonl", ".json": "application/json"}


def mime_type(name: str) -> str:
    return next((mime for suffix, mime in _MIME.items() if name.endswith(suffix)), "text/plain")


def resource_link(ref: SpillRef) -> ResourceLink:
    """The spilled file as a link a client can read (``resources/read``)."""
    return ResourceLink(
        uri=spill_uri(ref),
        name=ref.ref,
        mime_type=mime_type(ref.ref),
        size=ref.size,
        # the name once more would cost ~20 tokens of every result's budget: say where it is
        description=f"complete result, {ref.lines} lines: page it with read_output ref=<name>",
    )


def _spilled(ref: SpillRef) -> dict[str, Any]:
    return {"ref": ref.ref, "uri": spill_uri(ref), "bytes": ref.size, "lines": ref.lines}


# -- agentout's own tools ------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    """What one of agentout's tools produced: packed text, spilled files, structured data."""

    text: str
    refs: tuple[SpillRef, ...] = ()
    structured: dict[str, Any] | None = None
    error: bool = False
    meta: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of_delivery(cls, delivery: Delivery, **meta: Any) -> Reply:
        refs = (delivery.ref,) if delivery.ref is not None else ()
        if delivery.warning:
            meta["warning"] = delivery.warning
        return cls(delivery.text, refs, meta=meta)


def to_result(reply: Reply, limits: Limits) -> CallToolResult:
    """The reply as the client receives it, within ``limits.max_tokens``.

    What an agent is shown of a result counts: the text blocks as their text, and each
    ``resource_link`` block as its JSON (name, URI, description, type, size), together
    within the budget; the structured content, as compact JSON, within it on its own.
    The text was packed by a library call that left room for the links (``reserve``);
    this guards the count. When text and links do not fit together but the text names
    every file, the links are left out (``_meta`` still lists the files); else the text
    is cut by lines, as a last resort.
    """
    refs = list(reply.refs)
    meta: dict[str, Any] = dict(reply.meta)
    structured = reply.structured
    if structured is not None and not limits.fits(compact_json(structured)):
        outcome = _fit_structured(structured, limits, schema=None, hybrid=False)
        if outcome.error is not None:
            return _error(outcome.error, outcome.ref)
        structured = outcome.value
        if outcome.ref is not None:
            refs.append(outcome.ref)
        meta["cut"] = [cut.describe() for cut in outcome.cuts]
    refs = list(dict.fromkeys(refs))
    named = reply.text + (compact_json(structured) if structured is not None else "")
    shown = _shown(reply.text, refs, limits, named)
    if shown is None:
        return _error(
            f"the result does not fit max_tokens={limits.max_tokens} beside the links to "
            "its files; give a larger budget",
            refs[0] if refs else None,
        )
    text, linked, cut = shown
    warning = cut.warning if cut is not None else None
    if cut is not None and cut.ref is not None:
        refs = list(dict.fromkeys([*refs, cut.ref]))
    if warning:
        meta["warning"] = warning
    if refs:
        meta["spilled"] = [_spilled(ref) for ref in refs]
    content: list[ContentBlock] = [TextContent(text=text), *map(resource_link, linked)]
    _record(content, limits)
    return CallToolResult(
        content=content,
        structured_content=structured,
        is_error=reply.error,
        _meta={META_KEY: meta} if meta else None,
    )


def _shown(
    text: str, refs: list[SpillRef], limits: Limits, named: str
) -> tuple[str, list[SpillRef], Fitted | None] | None:
    """What the agent is shown: (text, files linked, the cut if the text was cut), the
    first of these that fits: the text and every link; the text alone, if it (or the
    structured content: ``named`` holds both) names every file; the text cut by lines
    beside every link and the link to the whole text; the cut text alone, naming the
    whole text (which names the rest). None if nothing fits."""
    tokenizer = limits.tokenizer

    def fits(shown: str, linked: Sequence[SpillRef]) -> bool:
        room = limits.max_tokens - sum(link_tokens(ref, tokenizer) for ref in linked)
        return room >= 0 and count_until(shown, room, tokenizer) is not None

    def names_all(shown: str, linked: Sequence[SpillRef]) -> bool:
        # by its name, or by the 16 hex digits that name it too (agentout show ID)
        return all(ref.ref in shown or _hex(ref) in shown for ref in linked)

    if fits(text, refs):
        return text, refs, None
    if names_all(named, refs) and fits(text, []):
        return text, [], None
    links = sum(link_tokens(ref, tokenizer) for ref in refs)
    for room in (
        limits.max_tokens - links - reserve(tokenizer, ("mcp", ".txt")),
        limits.max_tokens,
    ):
        if room < 1:
            continue
        try:
            cut = fit_text(text, replace(limits, max_tokens=room), hybrid=False)
        except ValueError:
            continue
        every = [*refs, *([cut.ref] if cut.ref is not None else [])]
        if fits(cut.text, every):
            return cut.text, every, cut
        # the cut text names the whole text, which names the other files
        if cut.ref is not None and names_all(cut.text, [cut.ref]) and fits(cut.text, []):
            return cut.text, [], cut
    return None


def _hex(ref: SpillRef) -> str:
    return ref.ref.rsplit(".", 1)[0].rsplit("-", 1)[-1]


def block_json(block: ContentBlock) -> str:
    """A content block as the client receives it: compact JSON."""
    return compact_json(block.model_dump(mode="json", by_alias=True, exclude_none=True))


def agent_tokens(blocks: Sequence[ContentBlock], tokenizer: Tokenizer) -> int:
    """What the agent is shown of ``blocks``: each text block's text, each other block's
    JSON, counted exactly."""
    return sum(
        tokenizer.count(block.text if isinstance(block, TextContent) else block_json(block))
        for block in blocks
    )


def link_tokens(ref: SpillRef, tokenizer: Tokenizer) -> int:
    """The tokens of the ``resource_link`` block naming ``ref``."""
    return tokenizer.count(block_json(resource_link(ref)))


# 16 hex digits that cost the most: digits and letters alternate, so no two merge
_WORST_HEX = "1a2b3c4d5e6f7a8b"


def reserve(tokenizer: Tokenizer, *names: tuple[str, str]) -> int:
    """Room to leave for links to files still to be spilled, one per (kind, suffix): each
    costed with the longest size and line count a file can have."""
    return sum(
        link_tokens(SpillRef(Path(), f"{kind}-{_WORST_HEX}{suffix}", 10**15, 10**12), tokenizer)
        for kind, suffix in names
    )


def _record(content: Sequence[ContentBlock], limits: Limits) -> None:
    """The savings ledger's row for this tool result (``agentout.ledger.book``; never fails):
    what the agent is shown, the links counted."""
    from agentout.ledger import book as ledger

    if ledger.enabled():
        shown = agent_tokens(content, limits.tokenizer)
        ledger.record(tool="mcp", command="", delivered_tokens=shown)


def _error(message: str, ref: SpillRef | None = None) -> CallToolResult:
    content: list[ContentBlock] = [TextContent(text=message)]
    if ref is not None:
        content.append(resource_link(ref))
    return CallToolResult(content=content, is_error=True)


# -- structured content --------------------------------------------------------------------


@dataclass(frozen=True)
class _Structured:
    value: Any = None
    ref: SpillRef | None = None
    cuts: tuple[Cut, ...] = ()
    error: str | None = None


def _valid(value: Any, schema: Mapping[str, Any] | None) -> bool:
    if schema is None:
        return True
    # The SDK's own dependency (its client validates with it); it ships no type hints.
    from jsonschema.validators import validator_for  # type: ignore[import-untyped]

    validator = validator_for(schema)(schema)
    return bool(validator.is_valid(value))


def _fit_structured(
    value: Any, limits: Limits, *, schema: Mapping[str, Any] | None, hybrid: bool
) -> _Structured:
    """The structured content within budget and still valid; the complete value spilled."""
    text = compact_json(value)
    if (limits.inline if hybrid else limits.fits)(text):
        return _Structured(value)
    ref, warning = limits.try_spill(json.dumps(value, ensure_ascii=False, indent=2), **_JSON)
    attempts = [value]
    if isinstance(value, dict):  # say where the rest is, if the schema lets a key be added
        note: dict[str, Any] = {"warning": warning}
        if ref is not None:
            note = {"complete": spill_uri(ref), "read_with": f"read_output ref={ref.ref}"}
        attempts.insert(0, {**value, NOTE_KEY: note})
    for attempt in attempts:
        if attempt is not value and not _valid(attempt, schema):
            continue
        fitted = fit_value(attempt, limits)
        if fitted is not None and _valid(fitted[0], schema):
            return _Structured(fitted[0], ref, tuple(fitted[1]))
    where = f"; the complete result is {spill_uri(ref)}" if ref is not None else ""
    return _Structured(
        ref=ref,
        error=(
            f"the result does not fit max_tokens={limits.max_tokens} as valid structured "
            f"content (its output schema needs more than whole items can be cut to){where}"
        ),
    )


_JSON = {"kind": "mcp", "suffix": ".json"}


# -- any tool's result (the middleware) -------------------------------------------------------


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


_NOT_JSON = object()


def _echo_shape(texts: Sequence[TextContent], structured: Any) -> str | None:
    """How the text blocks echo the structured content, as the SDK writes them: "text"
    (one block, the string ``value["result"]``), "whole" (one block, the value as JSON),
    "result" (one block, ``value["result"]`` as JSON), "items" (one block per item of
    ``value["result"]``); None when the text says something else."""
    inner = structured.get("result", _NOT_JSON) if isinstance(structured, dict) else _NOT_JSON
    if len(texts) == 1 and isinstance(inner, str) and len(structured) == 1:
        return "text" if texts[0].text == inner else None
    if len(texts) == 1:
        parsed = _loads(texts[0].text)
        if parsed == structured:
            return "whole"
        if parsed is not _NOT_JSON and parsed == inner:
            return "result"
    if isinstance(inner, list) and len(inner) == len(texts) > 0:
        pairs = zip(texts, inner, strict=True)
        if all(_loads(block.text) == item for block, item in pairs):
            return "items"
    return None


def _indented(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2)


def _note(ref: SpillRef | None, warning: str | None, cuts: Sequence[Cut]) -> str:
    what = "; ".join(cut.describe() for cut in cuts) or "cut"
    if ref is None:
        return f"[agentout: {what} shown; {warning or 'the rest was not kept'}]"
    return (
        f"[agentout: {what} shown; the complete result ({ref.size} bytes) is {spill_uri(ref)}: "
        f"page it with read_output ref={ref.ref} (or grep=PATTERN)]"
    )


def _whole_blocks(texts: Sequence[str], limits: Limits, note: Callable[[int], str]) -> list[str]:
    """The first whole ``texts`` that fit beside ``note(kept)``, then that note: counted
    exactly, the note's own length included (it names how many were kept)."""
    count = limits.tokenizer.count
    costs: list[int] = []
    for text in texts:
        if sum(costs) + count(text) + count(note(len(costs) + 1)) > limits.max_tokens:
            break
        costs.append(count(text))
    kept = len(costs)
    while kept and sum(costs[:kept]) + count(note(kept)) > limits.max_tokens:
        kept -= 1
    return [*texts[:kept], note(kept)]


def _echo_blocks(
    value: Any, shape: str, limits: Limits, ref: SpillRef | None, warning: str | None
) -> list[TextContent] | None:
    """The echo of ``value`` cut to fit beside a note line: whole items, whole lines."""
    source = value["result"] if shape in ("result", "items") else value
    if shape == "items":
        total = len(source)

        def note(kept: int) -> str:
            return _note(ref, warning, [Cut("result", kept, total, "items")])

        shown = _whole_blocks([_indented(item) for item in source], limits, note)
        return [TextContent(text=text) for text in shown]
    room = limits.max_tokens - limits.tokenizer.count(_note(ref, warning, []))
    for _ in range(16):  # the note names the cuts, so its length is known only after them
        if room <= 0:
            return None
        fitted = fit_value(source, replace(limits, max_tokens=room), dumps=_indented)
        if fitted is None:
            return None
        text, said = _indented(fitted[0]), _note(ref, warning, fitted[1])
        over = limits.tokenizer.count(text) + limits.tokenizer.count(said) - limits.max_tokens
        if over <= 0:
            return [TextContent(text=text), TextContent(text=said)]
        # leave the text what this note leaves it, and always less than before
        room = min(room - 1, limits.max_tokens - limits.tokenizer.count(said))
    return None


def _text_cost(blocks: Sequence[TextContent], limits: Limits) -> tuple[bool, int]:
    """(every block's tokens together within budget, bytes of the blocks together)."""
    left = limits.max_tokens
    for block in blocks:
        used = count_until(block.text, left, limits.tokenizer)
        if used is None:
            return False, 0
        left -= used
    return True, sum(len(b.text.encode("utf-8", "surrogatepass")) for b in blocks)


def _fit_blocks(
    blocks: Sequence[TextContent], limits: Limits
) -> tuple[list[TextContent], SpillRef | None, str | None]:
    """Several text blocks (a list result): the first whole ones that fit, then a note;
    one block, or blocks of which not even the first fits: cut as text, by lines."""
    joined = "\n".join(block.text for block in blocks)
    if len(blocks) > 1:
        ref, warning = limits.try_spill(joined, kind="mcp", suffix=".txt")
        total = len(blocks)

        def note(kept: int) -> str:
            return _note(ref, warning, [Cut("content", kept, total, "blocks")])

        shown = _whole_blocks([block.text for block in blocks], limits, note)
        if len(shown) > 1:
            return [TextContent(text=text) for text in shown], ref, warning
    fitted = fit_text(joined, limits)
    return [TextContent(text=fitted.text)], fitted.ref, fitted.warning


def _fit_text_result(
    result: CallToolResult, text: str, limits: Limits, schema: Mapping[str, Any] | None
) -> CallToolResult:
    """A text result the SDK also gave as ``{"result": text}``: cut once, by lines, and
    the structured content made of the same cut text (whole lines, if it must be shorter)."""
    fitted = fit_text(text, limits)
    structured = {"result": fitted.text}
    if fitted.text == text and limits.inline(compact_json(structured)):
        return result
    ref, warning = fitted.ref, fitted.warning
    budget = limits.max_tokens
    for _ in range(4):  # quoted as JSON the text counts more: cut it again, a little shorter
        over = limits.tokenizer.count(compact_json(structured)) - limits.max_tokens
        if over <= 0:
            break
        budget -= over + 4
        try:
            smaller = fit_text(text, replace(limits, max_tokens=budget), hybrid=False)
        except ValueError:  # not even the line naming the file fits: cut by lines below
            break
        structured = {"result": smaller.text}
        ref, warning = ref or smaller.ref, warning or smaller.warning
    if not limits.fits(compact_json(structured)):
        shorter = fit_value(structured, limits)
        if shorter is None or not _valid(shorter[0], schema):
            return _error(f"the result does not fit max_tokens={limits.max_tokens}", ref)
        structured = shorter[0]
    meta: dict[str, Any] = {}
    if warning:
        meta["warning"] = warning
    content: list[ContentBlock] = [TextContent(text=fitted.text)]
    if ref is not None:
        meta["spilled"] = [_spilled(ref)]
        content.append(resource_link(ref))
    content.extend(block for block in result.content if not isinstance(block, TextContent))
    return CallToolResult(
        content=content,
        structured_content=structured,
        is_error=result.is_error,
        _meta={**(result.meta or {}), META_KEY: meta},
    )


def fit_call_result(
    result: CallToolResult,
    limits: Limits,
    *,
    output_schema: Mapping[str, Any] | None = None,
) -> CallToolResult:
    """``result`` within ``limits`` (see the module docstring); unchanged if it fits.

    Hybrid: a channel over the inline threshold in bytes is spilled too, and what the
    client gets is then packed within ``max_tokens``. A result that cannot be cut to fit
    and stay valid under ``output_schema`` becomes an error result naming the file.
    """
    texts = [block for block in result.content if isinstance(block, TextContent)]
    others = [block for block in result.content if not isinstance(block, TextContent)]
    structured = result.structured_content
    if structured is not None and not result.is_error and _echo_shape(texts, structured) == "text":
        return _fit_text_result(result, texts[0].text, limits, output_schema)
    fits_text, text_bytes = _text_cost(texts, limits)
    text_ok = fits_text and text_bytes <= limits.inline_threshold
    refs: list[SpillRef] = []
    meta: dict[str, Any] = {}
    new_structured = structured
    cuts: tuple[Cut, ...] = ()
    warning: str | None = None
    if structured is not None and not result.is_error:
        outcome = _fit_structured(structured, limits, schema=output_schema, hybrid=True)
        if outcome.error is not None:
            return _error(outcome.error, outcome.ref)
        new_structured, cuts = outcome.value, outcome.cuts
        if outcome.ref is not None:
            refs.append(outcome.ref)
    shape = _echo_shape(texts, structured) if structured is not None else None
    blocks: list[TextContent] = texts
    if shape is not None and (not text_ok or new_structured is not structured):
        ref = refs[0] if refs else None
        if ref is None:
            ref, warning = limits.try_spill(_indented(structured), kind="mcp", suffix=".json")
            refs.extend([ref] if ref is not None else [])
        echoed = _echo_blocks(structured, shape, limits, ref, warning)
        if echoed is None:
            return _error(f"the result does not fit max_tokens={limits.max_tokens}", ref)
        blocks = echoed
    elif shape is None and not text_ok and texts:
        blocks, ref, warning = _fit_blocks(texts, limits)
        refs.extend([ref] if ref is not None else [])
    if blocks is texts and new_structured is structured:
        return result
    if cuts:
        meta["cut"] = [cut.describe() for cut in cuts]
    if warning:
        meta["warning"] = warning
    refs = list(dict.fromkeys(refs))
    if refs:
        meta["spilled"] = [_spilled(ref) for ref in refs]
    old_meta = dict(result.meta or {})
    old_meta[META_KEY] = meta
    content: list[ContentBlock] = [*blocks, *map(resource_link, refs), *others]
    return CallToolResult(
        content=content,
        structured_content=new_structured,
        is_error=result.is_error,
        _meta=old_meta,
    )
