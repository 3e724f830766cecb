"""Truncation by tokens, as in TOPA: strings, lists and mappings, marked "...N more".

Each helper returns a text whose token count, by the chosen tokenizer (o200k_base unless
told), is at most ``max_tokens``. The one exception: a budget too small for even the bare
marker gets the bare marker (``...`` for a string, ``[...N more]`` for a list,
``{...N more}`` for a mapping; ``[]`` for an empty list), so a cut is never silent.
A negative budget counts as 0.

Strings are cut between characters, never inside a surrogate pair, before a combining mark
or a skin-tone modifier, or around a zero-width joiner. Lists and mappings keep whole items
only, in their order (a set is sorted first, so the output is the same on every run).
Nothing is rendered past what could possibly fit: a 10 MB string or a million-item list
costs about as much as the budget, not as the input.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Any, Literal

from agentout.tokens import Tokenizer, count_until, get_tokenizer, max_chars
from agentout.tokens.probe import bisect

__all__ = [
    "Style",
    "clip",
    "smart_truncate",
    "truncate_list",
    "truncate_mapping",
    "truncate_string",
]

Style = Literal["python", "json"]

_MARKS = frozenset({"Mn", "Mc", "Me"})
_ZWJ = "\u200d"
_LOOK_AHEAD = 32  # characters tried one by one past the binary search's answer


def truncate_string(
    text: str,
    max_tokens: int,
    tokenizer: str | Tokenizer | None = None,
    suffix: str = "...",
) -> str:
    """``text`` if it fits, else its longest prefix found that fits with ``suffix`` after it.

    >>> truncate_string("The quick brown fox jumps over the lazy dog", 5)
    'The quick brown fox...'
    """
    tok = get_tokenizer(tokenizer)
    max_tokens = max(max_tokens, 0)
    if count_until(text, max_tokens, tok) is not None:
        return text
    if count_until(suffix, max_tokens, tok) is None:
        return suffix

    def fits(cut: int) -> bool:
        return count_until(text[: _boundary(text, cut)] + suffix, max_tokens, tok) is not None

    # Cuts at or past ``hi`` cannot fit: the whole text (it did not), or too many characters.
    bound = max_chars(max_tokens, tok)
    hi = len(text) if bound is None else min(len(text), bound - len(suffix) + 1)
    cut = bisect(fits, 0, hi)
    while True:  # counts dip inside a word ("quic" costs more than "quick"): look further
        ahead = [j for j in range(cut + 1, min(hi, cut + 1 + _LOOK_AHEAD)) if fits(j)]
        if not ahead:
            break
        cut = ahead[-1]
    cut = _boundary(text, cut)
    tidy = _boundary(text, len(text[:cut].rstrip()))  # "fox..." reads better than "fox ..."
    if 0 < tidy < cut and fits(tidy):
        cut = tidy
    return text[:cut] + suffix


def clip(text: str, limit: int, *, cut_bytes: int = 0) -> str:
    """``text`` cut to ``limit`` characters and marked ``… (+N chars)``: for views sized
    in characters (a line's terse and full views), where a token cut is not needed.

    ``cut_bytes`` are bytes dropped before ``text`` was made (a huge line kept only in
    part): the mark then counts bytes, those and the rest of ``text``'s in UTF-8.
    """
    if not cut_bytes:
        return text if len(text) <= limit else f"{text[:limit]}… (+{len(text) - limit} chars)"
    rest = cut_bytes + len(text[limit:].encode("utf-8", "surrogatepass"))
    return f"{text[:limit]}… (+{rest} bytes)"


def truncate_list(
    items: Collection[Any],
    max_tokens: int,
    style: Style = "python",
    tokenizer: str | Tokenizer | None = None,
) -> str:
    """``[a, b, ...N more]``: as many whole items as fit, then how many were left out.

    ``style="python"`` renders items with ``repr()`` (a list, tuple or set that fits whole
    reads exactly as its ``repr``); ``style="json"`` with ``json.dumps`` (non-ASCII kept,
    other objects as their ``str``), and the marker is a string item, so the output is
    valid JSON: ``["a", "b", "...3 more"]``.
    """
    render = _renderer(style)
    ordered = _ordered(items)
    if style == "json":
        opener, closer = "[", "]"
    else:
        opener, closer = _python_brackets(items)

    def wrap(shown: list[str], omitted: int) -> str:
        if omitted:
            marker = f"...{omitted} more"
            shown = [*shown, json.dumps(marker) if style == "json" else marker]
        elif not shown and isinstance(items, (set, frozenset)) and style == "python":
            return "set()"
        elif len(shown) == 1 and isinstance(items, tuple) and style == "python":
            return f"({shown[0]},)"
        return opener + ", ".join(shown) + closer

    return _fit(map(render, ordered), len(ordered), max_tokens, tokenizer, wrap)


def truncate_mapping(
    mapping: Mapping[Any, Any],
    max_tokens: int,
    style: Style = "python",
    tokenizer: str | Tokenizer | None = None,
) -> str:
    """``{k: v, ...N more}``: as many whole pairs as fit, in the mapping's order.

    ``style="json"`` renders ``{"k": v, "...": "N more"}``, valid JSON; keys that are not
    strings become strings as ``json.dumps`` makes them.
    """
    render = _renderer(style)

    def pair(key: Any, value: Any) -> str:
        if style == "json":
            return f"{render(_json_key(key))}: {render(value)}"
        return f"{key!r}: {value!r}"

    def wrap(shown: list[str], omitted: int) -> str:
        if omitted:
            marker = f"...{omitted} more"
            shown = [*shown, f'"...": "{omitted} more"' if style == "json" else marker]
        return "{" + ", ".join(shown) + "}"

    pairs = (pair(key, value) for key, value in mapping.items())
    return _fit(pairs, len(mapping), max_tokens, tokenizer, wrap)


def smart_truncate(
    value: Any,
    max_tokens: int,
    style: Style = "python",
    tokenizer: str | Tokenizer | None = None,
    suffix: str = "...",
) -> str:
    """Truncate anything, as TOPA's ``smart_truncate``.

    A string is cut as text (it is not quoted); a mapping and a list, tuple or set keep
    whole entries; anything else is rendered in ``style`` and cut as text.
    """
    if isinstance(value, str):
        return truncate_string(value, max_tokens, tokenizer, suffix)
    if isinstance(value, Mapping):
        return truncate_mapping(value, max_tokens, style, tokenizer)
    if isinstance(value, (list, tuple, set, frozenset)):
        return truncate_list(value, max_tokens, style, tokenizer)
    return truncate_string(_renderer(style)(value), max_tokens, tokenizer, suffix)


def _fit(
    entries: Iterator[str],
    total: int,
    max_tokens: int,
    tokenizer: str | Tokenizer | None,
    wrap: Callable[[list[str], int], str],
) -> str:
    """The most leading entries that fit, wrapped with the count of those left out."""
    tok = get_tokenizer(tokenizer)
    max_tokens = max(max_tokens, 0)
    bound = max_chars(max_tokens, tok)
    shown: list[str] = []
    size = 0
    for entry in entries:  # render only what could fit, never the whole of a huge input
        shown.append(entry)
        size += len(entry) + 2
        if bound is not None and size > bound:
            break
    if len(shown) == total:
        whole = wrap(shown, 0)
        if total == 0 or count_until(whole, max_tokens, tok) is not None:
            return whole
    if count_until(wrap([], total), max_tokens, tok) is None:
        return wrap([], total)

    def fits(k: int) -> bool:
        return count_until(wrap(shown[:k], total - k), max_tokens, tok) is not None

    # Keeping all of ``shown`` cannot fit: it is the whole, or it passed the bound.
    k = bisect(fits, 0, len(shown))
    return wrap(shown[:k], total - k)


def _boundary(text: str, cut: int) -> int:
    """``cut``, moved back until it does not split a character or cluster."""
    while 0 < cut < len(text) and _continues(text, cut):
        cut -= 1
    return cut


def _continues(text: str, i: int) -> bool:
    """Does ``text[i]`` belong with the character before it?"""
    char, before = text[i], text[i - 1]
    if "\udc00" <= char <= "\udfff" and "\ud800" <= before <= "\udbff":
        return True  # the low half of a surrogate pair
    if char == _ZWJ or before == _ZWJ or "\U0001f3fb" <= char <= "\U0001f3ff":
        return True  # an emoji sequence or a skin-tone modifier
    return unicodedata.category(char) in _MARKS


def _renderer(style: str) -> Callable[[Any], str]:
    if style == "python":
        return repr
    if style == "json":
        return _json
    raise ValueError(f"unknown style {style!r}; styles: python, json")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _json_key(key: Any) -> str:
    """A mapping key as json.dumps writes it: strings as they are, 1 as "1", None as "null"."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return json.dumps(key)
    return str(key)


def _ordered(items: Collection[Any]) -> Collection[Any]:
    if not isinstance(items, (set, frozenset)):
        return items
    try:
        return sorted(items)
    except TypeError:  # mixed types: order by rendering, still the same on every run
        return sorted(items, key=repr)


def _python_brackets(items: Iterable[Any]) -> tuple[str, str]:
    if isinstance(items, tuple):
        return "(", ")"
    if isinstance(items, (set, frozenset)):
        return "{", "}"
    return "[", "]"
