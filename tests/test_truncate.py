"""Truncation by tokens: never over budget, whole items only, honest counts of what is left."""

from __future__ import annotations

import json
import re
import unicodedata
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.tokens import count, get_tokenizer
from agentout.tokens.truncate import (
    smart_truncate,
    truncate_list,
    truncate_mapping,
    truncate_string,
)

TEXT_CHARS = st.one_of(
    st.sampled_from(list(" \n\t.,'/!abcXYZ0123é\u0301東👍🏽\u200d")),
    st.characters(),
    st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF),
)
TEXTS = st.text(TEXT_CHARS, max_size=300)
BUDGETS = st.integers(0, 60)
TOKENIZERS = st.sampled_from(["o200k_base", "cl100k_base", "chars4"])
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
)
ITEMS = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3), max_leaves=6)
MARKER = re.compile(r"\.\.\.(\d+) more")


def _splits_a_cluster(text: str, cut: int) -> bool:
    """The spec: a cut must not leave half a surrogate pair, a mark without its base, a
    skin tone without its emoji, or a zero-width joiner at either side."""
    if not 0 < cut < len(text):
        return False
    before, after = text[cut - 1], text[cut]
    return (
        ("\ud800" <= before <= "\udbff" and "\udc00" <= after <= "\udfff")
        or "\u200d" in (before, after)
        or "\U0001f3fb" <= after <= "\U0001f3ff"
        or unicodedata.category(after) in ("Mn", "Mc", "Me")
    )


def _has_lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# -- strings ---------------------------------------------------------------------------


def test_string_examples() -> None:
    fox = "The quick brown fox jumps over the lazy dog"
    assert truncate_string(fox, 100) == fox
    assert truncate_string(fox, 5) == "The quick brown fox..."
    assert count("The quick brown fox...") == 5
    # counts are not monotone: "The quic [cut]" is 6 tokens, "The quick [cut]" 5
    assert truncate_string(fox, 5, suffix=" [cut]") == "The quick [cut]"
    assert truncate_string(fox, 3, tokenizer="chars4") == "The quick..."  # 12 chars: 3
    assert truncate_string("", 0) == ""


def test_a_budget_too_small_for_the_suffix_gets_the_bare_suffix() -> None:
    assert truncate_string("hello world", 0) == "..."
    assert truncate_string("hello world", -4) == "..."
    assert truncate_string("hello world", 0, suffix="") == ""
    assert truncate_string("hello world", 1) == "..."  # "hello..." is 2 tokens


@settings(max_examples=200, deadline=None)
@given(text=TEXTS, budget=BUDGETS, tokenizer=TOKENIZERS, suffix=st.sampled_from(["...", "…", ""]))
def test_a_truncated_string_is_a_prefix_within_budget(text, budget, tokenizer, suffix) -> None:
    tok = get_tokenizer(tokenizer)
    out = truncate_string(text, budget, tok, suffix)
    if tok.count(text) <= budget:
        assert out == text
        return
    if tok.count(suffix) > budget:
        assert out == suffix  # the documented exception: the bare marker
        return
    assert tok.count(out) <= budget
    assert out.endswith(suffix)
    kept = len(out) - len(suffix)
    assert text.startswith(out[:kept])
    assert kept < len(text)
    assert not _splits_a_cluster(text, kept)
    if not _has_lone_surrogate(text):
        assert not _has_lone_surrogate(out)

    # As long as the search can make it: some cut from here through the spaces after it
    # (which the output drops) fits while the next cut, one character further, does not.
    def fits(j: int) -> bool:
        return tok.count(text[:j] + suffix) <= budget

    j = kept
    while True:
        nxt = _next_boundary(text, j)
        if fits(j) and (nxt >= len(text) or not fits(nxt)):
            break
        assert nxt < len(text), (kept, j)
        assert text[kept:nxt].isspace(), (kept, j)
        j = nxt


def _next_boundary(text: str, j: int) -> int:
    nxt = j + 1
    while nxt < len(text) and _splits_a_cluster(text, nxt):
        nxt += 1
    return nxt


def test_strings_never_split_surrogate_pairs_marks_or_emoji_sequences() -> None:
    for text in ["e\u0301" * 40, "👍🏽" * 30, "👨\u200d👩\u200d👧" * 10, "a\ud83d\ude00" * 40]:
        for budget in range(1, 25):
            out = truncate_string(text, budget)
            kept = out.removesuffix("...")
            assert text.startswith(kept)
            assert not _splits_a_cluster(text, len(kept))
            assert not kept.endswith(("\u200d", "\ud83d"))
            rest = text[len(kept) :]
            assert not rest or unicodedata.category(rest[0]) not in ("Mn", "Sk")


class _Metered:
    """The exact tokenizer, recording how many characters it is handed."""

    def __init__(self) -> None:
        self.inner = get_tokenizer("o200k_base")
        self.name, self.max_token_chars, self.seen = "metered", self.inner.max_token_chars, 0

    def count(self, text: str) -> int:
        self.seen += len(text)
        return self.inner.count(text)

    def count_until(self, text: str, limit: int) -> int | None:
        self.seen += min(len(text), max(limit, 0) * self.max_token_chars)
        return self.inner.count_until(text, limit)


def test_a_10_mb_string_costs_the_budget_not_the_text() -> None:
    text = "All work and no play makes Jack a dull boy. " * 250_000
    assert len(text) > 10_000_000
    metered = _Metered()
    out = truncate_string(text, 500, metered)
    assert count(out) <= 500
    assert len(out) > 1000  # not a degenerate cut
    # a binary search over prefixes of at most 500 * 128 characters, then a short look-ahead:
    # about 200 K characters handed over in all (each count stopping early), not 11 M
    assert metered.seen < 20 * 500 * 128 < len(text) / 8


# -- lists -----------------------------------------------------------------------------


def test_list_examples() -> None:
    numbers = list(range(100))
    assert truncate_list(numbers, 20) == "[0, 1, 2, 3, 4, ...95 more]"
    assert truncate_list(numbers, 1000) == repr(numbers)
    assert truncate_list(["a", "b"], 100) == "['a', 'b']"
    words = [f"item{i}" for i in range(100)]
    out = truncate_list(words, 20, style="json")
    assert out == '["item0", "item1", "item2", "item3", "...96 more"]'
    assert json.loads(out)[-1] == "...96 more"
    assert truncate_list(["é", 1, None], 100, style="json") == '["é", 1, null]'


def test_lists_read_as_their_repr_when_whole() -> None:
    assert truncate_list((1,), 10) == "(1,)"
    assert truncate_list((1, 2), 10) == "(1, 2)"
    assert truncate_list({3, 1, 2}, 10) == "{1, 2, 3}"
    assert truncate_list(set(), 10) == "set()"
    assert truncate_list([], 10) == "[]"
    assert truncate_list(tuple(range(50)), 12) == "(0, 1, ...48 more)"
    assert count("(0, 1, ...48 more)") <= 12 < count("(0, 1, 2, ...47 more)")


def test_sets_come_out_the_same_on_every_run() -> None:
    mixed = {"b", "a", 3, None, (1, 2)}
    assert truncate_list(mixed, 100) == truncate_list(set(reversed(list(mixed))), 100)
    # mixed types do not compare, so they are ordered by their repr
    assert truncate_list(mixed, 100) == "{'a', 'b', (1, 2), 3, None}"
    assert truncate_list({3, 1, 2, 10}, 100) == "{1, 2, 3, 10}"  # comparable: natural order


def test_a_list_budget_too_small_for_the_marker_gets_the_bare_marker() -> None:
    assert truncate_list(list(range(10)), 0) == "[...10 more]"
    assert truncate_list(list(range(10)), 0, style="json") == '["...10 more"]'
    assert truncate_list([], 0) == "[]"


def _check_list(items: list[Any], budget: int, style: str, out: str, tokenizer: str) -> int:
    """Assert the list properties; return how many items were shown."""
    tok = get_tokenizer(tokenizer)
    render = repr if style == "python" else (lambda v: json.dumps(v, ensure_ascii=False))
    whole = "[" + ", ".join(map(render, items)) + "]"
    if tok.count(whole) <= budget or not items:  # "[]" even over budget: nothing to cut
        assert out == whole
        return len(items)
    found = MARKER.search(out)
    assert found is not None, out
    omitted = int(found.group(1))
    shown = len(items) - omitted
    assert 0 <= shown < len(items)
    marker = f'"...{omitted} more"' if style == "json" else f"...{omitted} more"
    assert out == "[" + ", ".join([*map(render, items[:shown]), marker]) + "]"  # whole items
    if shown == 0 and tok.count(out) > budget:
        return 0  # the bare marker: the documented exception
    assert tok.count(out) <= budget
    if style == "json":
        assert json.loads(out)[:shown] == json.loads(json.dumps(items[:shown]))
    return shown


@settings(max_examples=150, deadline=None)
@given(
    items=st.lists(ITEMS, max_size=40),
    budget=BUDGETS,
    style=st.sampled_from(["python", "json"]),
    tokenizer=TOKENIZERS,
)
def test_a_truncated_list_is_within_budget_with_whole_items(items, budget, style, tokenizer):
    out = truncate_list(items, budget, style=style, tokenizer=tokenizer)
    shown = _check_list(items, budget, style, out, tokenizer)
    if shown < len(items) and not (shown == 0 and count(out, tokenizer) > budget):
        # one more item would not have fitted
        render = repr if style == "python" else (lambda v: json.dumps(v, ensure_ascii=False))
        omitted = len(items) - shown - 1
        bigger = [*map(render, items[: shown + 1])]
        if omitted:
            bigger.append(f'"...{omitted} more"' if style == "json" else f"...{omitted} more")
        assert count("[" + ", ".join(bigger) + "]", tokenizer) > budget
    assert truncate_list(items, budget, style=style, tokenizer=tokenizer) == out  # same bytes


class _Row:
    rendered = 0

    def __init__(self, i: int) -> None:
        self.i = i

    def __repr__(self) -> str:
        _Row.rendered += 1
        return f"row-{self.i}"


def test_a_million_items_cost_the_budget_not_the_list() -> None:
    items = [_Row(i) for i in range(1_000_000)]
    for style in ("python", "json"):  # json renders an unknown object as its str: the repr
        _Row.rendered = 0
        out = truncate_list(items, 500, style=style)
        assert count(out) <= 500
        assert out.endswith(" more]" if style == "python" else ' more"]')
        # only items that could fit in 500 tokens (500 * 128 characters) are ever rendered
        assert 50 < _Row.rendered <= 500 * 128 // len("row-0, ") + 1


# -- mappings --------------------------------------------------------------------------


def test_mapping_examples() -> None:
    mapping = {f"k{i}": i for i in range(100)}
    assert truncate_mapping(mapping, 20) == "{'k0': 0, 'k1': 1, ...98 more}"
    out = truncate_mapping(mapping, 20, style="json")
    assert out == '{"k0": 0, "k1": 1, "...": "98 more"}'
    assert json.loads(out)["..."] == "98 more"
    small = {"a": [1, 2], 3: None, None: True, 1.5: "x"}
    assert truncate_mapping(small, 100) == repr(small)
    assert truncate_mapping(small, 100, style="json") == json.dumps(small)
    assert truncate_mapping({}, 0) == "{}"
    assert truncate_mapping(mapping, 0) == "{...100 more}"
    assert truncate_mapping(mapping, 0, style="json") == '{"...": "100 more"}'


@settings(max_examples=150, deadline=None)
@given(
    mapping=st.dictionaries(st.text(max_size=8), ITEMS, max_size=30),
    budget=BUDGETS,
    style=st.sampled_from(["python", "json"]),
    tokenizer=TOKENIZERS,
)
def test_a_truncated_mapping_is_within_budget_with_whole_pairs(mapping, budget, style, tokenizer):
    out = truncate_mapping(mapping, budget, style=style, tokenizer=tokenizer)
    whole = repr(mapping) if style == "python" else json.dumps(mapping, ensure_ascii=False)
    if count(whole, tokenizer) <= budget or not mapping:
        assert out == whole
        return
    found = re.search(r"\.\.\.(?:\": \")?(\d+) more", out)
    assert found is not None, out
    shown = len(mapping) - int(found.group(1))
    if shown == 0 and count(out, tokenizer) > budget:
        return  # the bare marker
    assert count(out, tokenizer) <= budget
    pairs = list(mapping.items())[:shown]
    if style == "json":
        loaded = json.loads(out)
        assert loaded.pop("...") == f"{len(mapping) - shown} more"
        assert list(loaded.items()) == [(k, json.loads(json.dumps(v))) for k, v in pairs]
    else:
        assert out.startswith("{" + "".join(f"{k!r}: {v!r}, " for k, v in pairs))


# -- smart_truncate --------------------------------------------------------------------


def test_smart_truncate_dispatches_on_type() -> None:
    assert smart_truncate("hello " * 50, 5) == truncate_string("hello " * 50, 5)
    assert smart_truncate(list(range(100)), 10) == truncate_list(list(range(100)), 10)
    assert smart_truncate((1, 2, 3), 10) == "(1, 2, 3)"
    assert smart_truncate({"a": 1}, 10, style="json") == '{"a": 1}'
    assert smart_truncate(12345678901234567890, 3) == "123456..."  # 123|456|...
    assert smart_truncate(b"bytes", 10) == "b'bytes'"
    assert smart_truncate(None, 10, style="json") == "null"


def test_an_unknown_style_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown style 'yaml'; styles: python, json"):
        truncate_list([1], 10, style="yaml")  # type: ignore[arg-type]
