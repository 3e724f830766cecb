"""``Lines``: one view drawn as several lines (a note's N, S and B), in every format."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout import Record, Result, pack
from agentout.formats import get_format
from agentout.formats.records import parse
from agentout.records import Lines


def _note(note_id: str, summary: str, body: str) -> Record:
    n = {"id": note_id, "title": f"Note {note_id}"}
    s = {"id": note_id, "summary": summary}
    b = {"id": note_id, "body": body}
    return Record.of(
        Lines(("N", n)), Lines(("N", n), ("S", s)), Lines(("N", n), ("S", s), ("B", b)), kind="N"
    )


def test_lines_is_the_merged_mapping_of_its_parts() -> None:
    view = Lines(("N", {"id": "a", "title": "A"}), ("S", {"id": "a", "summary": "s"}))
    assert dict(view) == {"id": "a", "title": "A", "summary": "s"}
    assert list(view) == ["id", "title", "summary"]
    assert len(view) == 3
    assert view.lines[1] == ("S", {"id": "a", "summary": "s"})


def test_a_key_shared_by_two_lines_must_agree() -> None:
    with pytest.raises(ValueError, match="'id' differs"):
        Lines(("N", {"id": "a"}), ("S", {"id": "b"}))


@pytest.mark.parametrize("kind", ["H", "n", "NN", "É", ""])
def test_line_kinds_follow_the_record_kind_rules(kind: str) -> None:
    with pytest.raises(ValueError, match="kind"):
        Lines((kind, {"id": "a"}))


def test_lines_needs_a_line() -> None:
    with pytest.raises(ValueError, match="at least one"):
        Lines()


def test_records_format_prints_one_line_per_part_with_its_own_kind() -> None:
    body = "# A\n\nline one\nline two"
    packed = pack(Result.of([_note("a", "sum", body)], {"mode": "t"}), format="records")
    lines = packed.text.splitlines()
    assert [line[0] for line in lines] == ["H", "N", "S", "B"]
    parsed = parse(packed.text)
    assert parsed[3] == ("B", {"id": "a", "body": body})  # the newlines survive, escaped


def test_the_fragment_is_exactly_what_render_adds() -> None:
    fmt = get_format("records")
    record = _note("a", "sum", "body\nmore")
    packed = pack(Result.of([record], {"mode": "t"}), format="records")
    head, _, rest = packed.text.partition("\n")
    assert rest == fmt.fragment(record, record.fullest)
    assert head.startswith("H ")


def test_json_shows_one_object_per_record_with_every_field() -> None:
    packed = pack(Result.of([_note("a", "sum", "body")], {"mode": "t"}), format="json")
    (obj,) = json.loads(packed.text)["records"]
    assert obj == {"_kind": "N", "id": "a", "title": "Note a", "summary": "sum", "body": "body"}


_words = st.text(alphabet=st.characters(codec="utf-8", blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    notes=st.lists(st.tuples(_words, _words), min_size=1, max_size=6),
    budget=st.integers(min_value=0, max_value=400),
    by_tokens=st.booleans(),
)
def test_budgets_hold_and_notes_stay_whole(
    notes: list[tuple[str, str]], budget: int, by_tokens: bool
) -> None:
    records = [_note(str(i), s, b) for i, (s, b) in enumerate(notes)]
    limit: dict[str, Any] = {"max_tokens" if by_tokens else "max_chars": budget}
    packed = pack(Result.of(records, {"mode": "t"}), format="records", **limit)
    size = packed.stats.tokens if by_tokens else len(packed.text)
    assert size <= budget or packed.stats.over_budget
    fmt = get_format("records")
    shown = packed.text.partition("\n")[2]
    expected = "".join(fmt.fragment(r, v) for r, v in packed.document.records)
    assert shown == expected  # each note at one of its views, never a part of one
    assert all(any(v is view for view in r.views) for r, v in packed.document.records)
