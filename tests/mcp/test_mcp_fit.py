"""Fitting text and JSON into a budget: never over, whole lines and items, nothing lost."""

from __future__ import annotations

import errno
import json
import os
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.mcp.fit import MIN_TOKENS, Limits, compact_json, fit_text, fit_value
from agentout.read.trouble import clean
from agentout.store.spill import SpillStore
from agentout.tokens import count

LINE = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")), max_size=50)
BUDGET = st.integers(min_value=MIN_TOKENS, max_value=1500)
# One store for all the examples of a test is what we want: files are named by content.
EXAMPLES = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def numbered(parts: list[str]) -> list[str]:
    """Distinct lines (the index first), so every shown line names its source line."""
    return [f"{i}: {part}" for i, part in enumerate(parts)]


@EXAMPLES
@given(
    parts=st.lists(LINE, max_size=400),
    errors=st.sets(st.integers(min_value=0, max_value=399), max_size=5),
    budget=BUDGET,
    threshold=st.integers(min_value=0, max_value=20_000),
)
def test_text_is_within_budget_whole_lines_and_kept_complete(
    store: SpillStore, parts: list[str], errors: set[int], budget: int, threshold: int
) -> None:
    lines = numbered(parts)
    for i in errors & set(range(len(lines))):
        lines[i] = f"{i}: ERROR: failure number {i}"
    text = "\n".join(lines)
    limits = Limits.of(budget, threshold, store=store)
    fitted = fit_text(text, limits)
    assert count(fitted.text) <= budget
    if fitted.ref is None:
        assert fitted.text == text
        assert len(text.encode()) <= threshold
        return
    assert fitted.ref.path.read_bytes() == text.encode()  # the complete text, byte for byte
    closing = fitted.text.splitlines()[-1]
    assert closing.endswith(f"read_output ref={fitted.ref.ref}]"), closing
    shown = [line for line in fitted.text.splitlines()[:-1] if not line.startswith("[… ")]
    for line in shown:  # each a source line as printed (invisible characters escaped)
        index = int(line.split(":", 1)[0])
        source = clean(lines[index].encode())
        assert line == source or (line.startswith(source[:300]) and "chars) …" in line)
    assert [int(line.split(":", 1)[0]) for line in shown] == sorted(
        int(line.split(":", 1)[0]) for line in shown
    ), "lines keep their order"
    for i in errors & set(range(len(lines))):
        if budget >= 1000:  # room for every planted error, whatever else is left out
            assert lines[i] in shown
    assert fit_text(text, limits) == fitted, "same input, same output"


def test_errors_are_kept_before_the_middle(store: SpillStore) -> None:
    lines = [f"step {i} done" for i in range(3000)]
    lines[1500] = "ERROR: the disk is full"
    fitted = fit_text("\n".join(lines), Limits.of(300, store=store))
    assert "ERROR: the disk is full" in fitted.text
    assert "step 0 done" in fitted.text
    assert "step 2999 done" in fitted.text
    assert "step 1400 done" not in fitted.text
    assert fitted.ref is not None
    marker = rf"^\[… \d+ lines · read_output ref={fitted.ref.ref} lines=\d+:\d+\]$"
    assert re.search(marker, fitted.text, re.MULTILINE)


def test_a_small_text_over_the_threshold_is_kept_but_shown_whole(store: SpillStore) -> None:
    text = "\n".join(f"line {i}" for i in range(50))
    fitted = fit_text(text, Limits.of(2000, 100, store=store))
    assert fitted.ref is not None
    assert fitted.text == f"{text}\n[read_output ref={fitted.ref.ref}]\n"


def test_an_unwritable_store_still_fits_and_says_so(
    store: SpillStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = os.open

    def read_only(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            raise OSError(errno.EROFS, "Read-only file system")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", read_only)
    fitted = fit_text("\n".join(f"l{i}" for i in range(5000)), Limits.of(250, store=store))
    assert fitted.ref is None
    assert fitted.warning == "the complete result could not be kept: Read-only file system"
    assert count(fitted.text) <= 250
    assert fitted.warning in fitted.text


def test_budget_bounds_are_checked() -> None:
    with pytest.raises(ValueError, match="between 200 and 200000"):
        Limits.of(199)
    with pytest.raises(ValueError, match="inline threshold"):
        Limits.of(500, -1)


# -- JSON values -------------------------------------------------------------------------

ITEM = st.fixed_dictionaries(
    {"id": st.integers(0, 10**6), "name": st.text(max_size=30), "ok": st.booleans()}
)


@EXAMPLES
@given(
    items=st.lists(ITEM, max_size=300),
    body=st.lists(LINE, max_size=300),
    budget=BUDGET,
)
def test_values_fit_exactly_keeping_whole_items_in_order(
    store: SpillStore, items: list[dict[str, Any]], body: list[str], budget: int
) -> None:
    value = {"total": len(items), "items": items, "body": "\n".join(body)}
    fitted = fit_value(value, Limits.of(budget, store=store))
    assert fitted is not None
    shorter, cuts = fitted
    assert count(compact_json(shorter)) <= budget
    assert shorter["total"] == len(items)
    assert shorter["items"] == items[: len(shorter["items"])], "a prefix of whole items"
    if shorter["body"] != value["body"]:
        kept = shorter["body"].split("\n")
        marker = kept.pop()
        if len(body) > 1:
            assert kept == body[: len(kept)], "whole lines"
            assert (
                marker
                == f"… ({len(body) - len(kept)} more line{'s' * (len(body) - len(kept) != 1)})"
            )
    if not cuts:
        assert shorter == value
    for cut in cuts:
        assert cut.path in ("items", "body")
        assert cut.kept < cut.total


def test_a_list_result_keeps_its_first_items(store: SpillStore) -> None:
    value = {"result": [{"id": i, "title": f"title {i}"} for i in range(1000)]}
    shorter, cuts = fit_value(value, Limits.of(300, store=store)) or ({}, [])
    kept = len(shorter["result"])
    assert 10 < kept < 1000
    assert shorter["result"] == value["result"][:kept]
    assert [c.describe() for c in cuts] == [f"result: {kept} of 1000 items"]
    one_more = {"result": value["result"][: kept + 1]}
    assert count(compact_json(one_more)) > 300, "as many as fit, not fewer"


def test_scalars_alone_over_budget_cannot_fit(store: SpillStore) -> None:
    value = {f"key{i}": i for i in range(400)}
    assert fit_value(value, Limits.of(200, store=store)) is None


def test_indented_serialisation_is_counted_as_given(store: SpillStore) -> None:
    value = [{"id": i} for i in range(500)]

    def indented(v: Any) -> str:
        return json.dumps(v, indent=2)

    shorter, _ = fit_value(value, Limits.of(400, store=store), dumps=indented) or ([], [])
    assert count(indented(shorter)) <= 400 < count(indented(value[: len(shorter) + 1]))
