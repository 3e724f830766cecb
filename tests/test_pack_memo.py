"""Packing remembers what it rendered only while it runs: the text is the one a fresh
render of the same document gives, and a view changed between two packs shows changed."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.test_pack import FORMATS, results

from agentout import Record, Result, pack
from agentout.formats import get_format
from agentout.formats._memo import recall, remembered


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    fmt=st.sampled_from(FORMATS),
    result=results,
    max_tokens=st.integers(0, 400),
)
def test_packed_text_is_a_fresh_render_of_its_document(
    fmt: str, result: Result, max_tokens: int
) -> None:
    packed = pack(result, format=fmt, max_tokens=max_tokens, redact=False)
    assert packed.text == get_format(fmt).render(packed.document)  # rendered outside any memo
    assert pack(result, format=fmt, max_tokens=max_tokens, redact=False).text == packed.text


def test_a_view_changed_between_packs_shows_changed() -> None:
    view: dict[str, Any] = {"id": 1, "title": "before"}
    result = Result.of([Record.of(view)])
    assert "title=before" in pack(result, max_tokens=100, redact=False).text
    view["title"] = "after"
    assert "title=after" in pack(result, max_tokens=100, redact=False).text


def test_recall_outside_a_block_always_makes() -> None:
    made: list[int] = []
    key = object()
    for _ in range(2):
        recall("x", key, None, lambda: made.append(1) or "v")
    assert len(made) == 2
    with remembered():
        with remembered():  # nested in a block that remembers nothing yet: the same memo
            recall("z", key, None, lambda: made.append(1) or "v")
        recall("z", key, None, lambda: made.append(1) or "v")
        for _ in range(3):
            assert recall("x", key, None, lambda: made.append(1) or "v") == "v"
        with remembered():  # nested: the same memo
            recall("x", key, None, lambda: made.append(1) or "v")
        recall("y", key, None, lambda: made.append(1) or "w")  # another kind of value
    assert len(made) == 5
