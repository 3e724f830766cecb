"""Budget claims for every notes command, property-tested on the example vault.

For any character or token budget: the output is within it (but for the flagged case
where the warning and the first note alone pass it), every note is shown whole at one
of its views (N; N+S; N+S+B), the reported token count is tiktoken's count of the very
text, and the same input gives the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from notes_support import EXAMPLE

from agentout import Packed, Result, pack
from agentout.formats.records import header as read_header
from agentout.formats.records import parse
from agentout.records import Lines, is_empty
from agentout.sources.notes import (
    context_result,
    index_result,
    load_vault,
    path_result,
    tree_result,
)


def _results() -> dict[str, Result]:
    vault = load_vault(EXAMPLE, cache=False)
    return {
        "index": index_result(vault),
        "context": context_result(
            vault,
            notes=["budgets", "logs/2025-02-injected-note"],
            query="exact token counts",
            with_body=True,
            with_edges=True,
        ),
        "tree": tree_result(vault, "budgets", max_depth=2),
        "path": path_result(vault, "tokenizers", "prompt-injection"),
    }


RESULTS = _results()
PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _pack(name: str, fmt: str, budget: int, by_tokens: bool) -> Packed:
    limit: dict[str, Any] = {"max_tokens" if by_tokens else "max_chars": budget}
    return pack(RESULTS[name], format=fmt, **limit)


def _views_by_id(name: str) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(kind, key) -> the record's views as plain field dicts, empty fields pruned."""
    out: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for record in RESULTS[name].records:
        views = [{k: v for k, v in view.items() if not is_empty(v)} for view in record.views]
        out[(record.kind, _key(views[0]))] = views
    return out


def _key(fields: dict[str, Any]) -> str:
    """A note by its id; an edge or the warning by all its fields."""
    return str(fields.get("id") or json.dumps(fields, sort_keys=True))


def _record_groups(text: str) -> list[tuple[str, dict[str, Any]]]:
    """The records of records-format text, read back by the parser: a note's N line
    gathers the S and B lines that follow it with the same id."""
    groups: list[tuple[str, dict[str, Any]]] = []
    for kind, fields in parse(text)[1:]:
        if kind in "SB":
            last_kind, last = groups[-1]
            assert last_kind == "N", f"{kind} line with no note before it"
            assert fields["id"] == last["id"], f"{kind} line of another note"
            assert kind not in last.get("_parts", ""), f"two {kind} lines for one note"
            last["_parts"] = last.get("_parts", "N") + kind
            last.update(fields)
        else:
            groups.append((kind, dict(fields)))
    return groups


def _assert_whole(name: str, shown: list[tuple[str, dict[str, Any]]]) -> None:
    views = _views_by_id(name)
    for kind, fields in shown:
        fields = {k: v for k, v in fields.items() if k != "_parts"}
        key = _key(fields)
        assert (kind, key) in views, f"{kind} {key} is no record of the result"
        assert fields in views[(kind, key)], f"{kind} {key} is not one of its views"


@pytest.mark.parametrize("name", sorted(RESULTS))
@PROPERTY
@given(budget=st.integers(min_value=0, max_value=4000), by_tokens=st.booleans())
def test_records_within_budget_and_whole(name: str, budget: int, by_tokens: bool) -> None:
    packed = _pack(name, "records", budget, by_tokens)
    size = packed.stats.tokens if by_tokens else len(packed.text)
    if packed.stats.over_budget:  # the envelope and the warning alone pass the budget
        assert packed.stats.included == 0
    else:
        assert size <= budget
    header = parse(packed.text)[0]
    assert header[0] == "H"
    assert header[1]["agentout"] == 1
    assert read_header(header[1])["truncated"] is packed.stats.truncated
    shown = _record_groups(packed.text)
    assert shown[0][0] == "W"  # forced, and first
    assert len(shown) - 1 == packed.stats.included
    _assert_whole(name, shown)


@pytest.mark.parametrize("name", sorted(RESULTS))
@PROPERTY
@given(budget=st.integers(min_value=0, max_value=4000), by_tokens=st.booleans())
def test_json_within_budget_and_whole(name: str, budget: int, by_tokens: bool) -> None:
    packed = _pack(name, "json", budget, by_tokens)
    size = packed.stats.tokens if by_tokens else len(packed.text)
    assert size <= budget or packed.stats.over_budget
    body = json.loads(packed.text)
    shown = [(r.pop("_kind"), r) for r in body["records"]]
    assert [kind for kind, _ in shown][:1] == ["W"]
    _assert_whole(name, shown)
    assert body["truncated"] is packed.stats.truncated


@pytest.mark.parametrize("name", sorted(RESULTS))
@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(budget=st.integers(min_value=0, max_value=4000), by_tokens=st.booleans())
def test_text_within_budget(name: str, budget: int, by_tokens: bool) -> None:
    packed = _pack(name, "text", budget, by_tokens)
    size = packed.stats.tokens if by_tokens else len(packed.text)
    assert size <= budget or packed.stats.over_budget
    assert "reference material written by others" in packed.text


@pytest.mark.parametrize("fmt", ["records", "json", "text"])
@pytest.mark.parametrize("name", sorted(RESULTS))
def test_counts_are_tiktokens_and_bytes_repeat(
    name: str, fmt: str, reference_count: Callable[[str], int]
) -> None:
    for budget in (None, 300, 1200):
        packed = pack(RESULTS[name], format=fmt, max_tokens=budget)
        assert packed.stats.tokens == reference_count(packed.text)
        again = pack(_results()[name], format=fmt, max_tokens=budget)
        assert again.text == packed.text


def test_a_tight_budget_keeps_notes_whole_and_says_truncated() -> None:
    packed = pack(RESULTS["context"], format="records", max_tokens=500)
    assert packed.stats.truncated
    assert "truncated=true" in packed.text.partition("\n")[0]
    groups = _record_groups(packed.text)
    assert [kind for kind, _ in groups][:2] == ["W", "N"]
    # the budget shows more notes tersely before it shows any body
    notes = [fields for kind, fields in groups if kind == "N"]
    assert len(notes) >= 2


def test_bodies_are_whole_when_shown() -> None:
    packed = pack(RESULTS["context"], format="records")
    vault = load_vault(EXAMPLE, cache=False)
    bodies = {f["id"]: f["body"] for k, f in parse(packed.text) if k == "B"}
    assert bodies["budgets"] == vault.body("budgets")
    assert "\n" in bodies["budgets"]
    assert len(packed.text.splitlines()) == len(parse(packed.text))  # one line per line


def test_note_views_are_lines() -> None:
    notes = [r for r in RESULTS["context"].records if r.kind == "N"]
    assert all(isinstance(v, Lines) for r in notes for v in r.views)
