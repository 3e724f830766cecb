"""Paging through a spilled file: within budget, contiguous, and the next page is named."""

from __future__ import annotations

import json
import shlex
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.formats.records import parse
from agentout.store.page import LineRange, page
from agentout.store.spill import SpillError, SpillStore
from agentout.tokens import count

property_settings = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

log_lines = st.lists(
    st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=120).map(
        lambda t: t.replace("\n", " ").replace("\r", " ")
    ),
    min_size=1,
    max_size=80,
)


def shown(text: str) -> list[int]:
    return [fields["n"] for kind, fields in parse(text) if kind == "L"]


def footer(text: str) -> dict[str, object]:
    kind, fields = parse(text)[-1]
    assert kind == "F"
    return fields


def follow(store: SpillStore, first: str, budget: int) -> list[int]:
    """Page from the start to the end using only what each page says comes next."""
    seen: list[int] = []
    args = ["--lines", "1:"]
    ref = first
    for _ in range(500):
        span = LineRange.parse(args[args.index("--lines") + 1])
        text = page(ref, lines=span, max_tokens=budget, store=store, format="records").text
        assert count(text) <= budget
        seen += shown(text)
        nxt = footer(text).get("next")
        if nxt is None:
            return seen
        args = shlex.split(str(nxt))[2:]
        ref = shlex.split(str(nxt))[2]
    raise AssertionError("paging did not end")


@property_settings
@given(lines=log_lines, budget=st.integers(min_value=300, max_value=1200))
def test_paging_within_budget_visits_every_line_once_in_order(
    store: SpillStore, lines: list[str], budget: int
) -> None:
    ref = store.write_text("".join(f"{line}\n" for line in lines), kind="run", suffix=".log")
    assert follow(store, ref.ref, budget) == list(range(1, len(lines) + 1))


def test_a_page_says_which_lines_it_shows(store: SpillStore) -> None:
    ref = store.write_text("".join(f"line {i}\n" for i in range(1, 1001)), kind="run")
    text = page(
        ref.ref, lines=LineRange(100, 400), max_tokens=300, store=store, format="records"
    ).text
    numbers = shown(text)
    assert numbers[0] == 100
    assert numbers == list(range(100, numbers[-1] + 1))
    assert footer(text)["shown"] == f"100:{numbers[-1]}"
    assert footer(text)["next"] == f"agentout show {ref.ref} --lines {numbers[-1] + 1}:400"
    assert parse(text)[0][1]["lines"] == 1000


def test_grep_selects_and_counts_matches(store: SpillStore) -> None:
    body = "".join(f"ok {i}\n" if i % 50 else f"ERROR at {i}\n" for i in range(1, 1001))
    ref = store.write_text(body, kind="run")
    text = page(
        ref.ref, grep="error", ignore_case=True, max_tokens=2000, store=store, format="records"
    ).text
    assert shown(text) == list(range(50, 1001, 50))
    assert parse(text)[0][1]["matches"] == 20
    assert "next" not in footer(text)


def test_grep_next_page_keeps_the_pattern(store: SpillStore) -> None:
    body = "".join(f"error number {i} with some words to take room\n" for i in range(300))
    ref = store.write_text(body, kind="run")
    text = page(ref.ref, grep="error n", max_tokens=200, store=store, format="records").text
    nxt = str(footer(text)["next"])
    assert nxt.endswith("--grep 'error n'")


def test_jsonl_lines_show_their_fields(store: SpillStore) -> None:
    rows = [{"id": i, "line": "x"} for i in range(3)]
    ref = store.write_text(
        "".join(json.dumps(r) + "\n" for r in rows), kind="records", suffix=".jsonl"
    )
    text = page(ref.ref, store=store, format="records").text
    assert [f for k, f in parse(text) if k == "R"] == [
        {"_line": i + 1, **r} for i, r in enumerate(rows)
    ]


def test_invalid_utf8_is_shown_replaced(store: SpillStore) -> None:
    ref = store.write_lines([b"caf\xe9\n"], kind="run", suffix=".log")
    text = page(ref.ref, store=store, format="records").text
    assert [f["text"] for k, f in parse(text) if k == "L"] == ["caf\ufffd"]


@pytest.mark.parametrize("bad", ["0:5", "5:2", "a:b", "1:x"])
def test_bad_ranges_are_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="--lines"):
        LineRange.parse(bad)


def test_a_bad_pattern_is_named(store: SpillStore) -> None:
    ref = store.write_text("x\n", kind="run")
    with pytest.raises(ValueError, match=r"--grep '\(': "):
        page(ref.ref, grep="(", store=store)


def test_paths_outside_the_store_are_refused(store: SpillStore) -> None:
    with pytest.raises(SpillError):
        page("/etc/passwd", store=store, format="records")


def test_counts_are_of_the_whole_selection_not_just_what_was_weighed(store: SpillStore) -> None:
    ref = store.write_text("".join(f"line {i}\n" for i in range(1, 5001)), kind="run")
    text = page(ref.ref, max_tokens=200, store=store, format="records").text
    head = parse(text)[0][1]
    assert head["total"] == 5000
    assert head["omitted"] == 5000 - head["included"]
    grep = parse(page(ref.ref, grep="7$", max_tokens=200, store=store, format="records").text)[0][1]
    assert grep["matches"] == grep["total"] == 500


# -- long lines: paged in parts (review finding 12) ---------------------------------------


def follow_parts(store: SpillStore, ref: str, budget: int) -> list[tuple[int, int, str]]:
    """Page from the start to the end by each page's `next`, keeping (n, part, text)."""
    seen: list[tuple[int, int, str]] = []
    args = ["--lines", "1:"]
    for _ in range(500):
        span = LineRange.parse(args[args.index("--lines") + 1])
        part = int(args[args.index("--part") + 1]) if "--part" in args else 1
        text = page(
            ref, lines=span, part=part, max_tokens=budget, store=store, format="records"
        ).text
        assert count(text) <= budget
        seen += [(f["n"], f.get("part", 0), f.get("text", "")) for k, f in parse(text) if k == "L"]
        nxt = footer(text).get("next")
        if nxt is None:
            return seen
        args = shlex.split(str(nxt))[2:]
    raise AssertionError("paging did not end")


def test_every_character_of_a_long_line_can_be_paged_to(store: SpillStore) -> None:
    line = "".join(f"{i:06d} " for i in range(10_000))  # 70,000 characters
    ref = store.write_text(f"before\n{line}\nafter\n", kind="run", suffix=".log")
    seen = follow_parts(store, ref.ref, 2000)
    assert seen[0] == (1, 0, "before")
    assert seen[-1] == (3, 0, "after")
    parts = seen[1:-1]
    assert [p for _, p, _ in parts] == list(range(1, len(parts) + 1))
    assert {n for n, _, _ in parts} == {2}
    assert "".join(text for _, _, text in parts) == line  # every character, in order, once


def test_a_long_line_with_multibyte_characters_and_crlf_splits_exactly(
    store: SpillStore,
) -> None:
    line = "é緑🙂x" * 40_000  # 160,000 characters, multi-byte across every read boundary
    ref = store.write_text(f"{line}\r\nend\r\n", kind="run", suffix=".log")
    seen = follow_parts(store, ref.ref, 6000)
    assert "".join(text for n, _, text in seen if n == 1) == line
    assert seen[-1] == (2, 0, "end")


def test_paging_a_huge_line_keeps_memory_small(store: SpillStore) -> None:
    with store.open(kind="run", suffix=".log") as writer:
        for _ in range(200):
            writer.write(b"y" * 100_000)  # one line of 20 MB
        writer.write(b"\nlast\n")
        ref = writer.commit()
    tracemalloc.start()
    try:
        text = page(
            ref.ref, lines=LineRange(2, 2), max_tokens=300, store=store, format="records"
        ).text
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [f["text"] for k, f in parse(text) if k == "L"] == ["last"]
    assert peak < 2_000_000


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    lengths=st.lists(st.integers(min_value=0, max_value=9000), min_size=1, max_size=8),
    budget=st.integers(min_value=1500, max_value=4000),
)
def test_paging_long_and_short_lines_shows_every_character_once(
    store: SpillStore, lengths: list[int], budget: int
) -> None:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
    lines = [" ".join(words[(i + n) % len(words)] for i in range(n // 6))[:n] for n in lengths]
    ref = store.write_text("".join(f"{line}\n" for line in lines), kind="run", suffix=".log")
    seen = follow_parts(store, ref.ref, budget)
    rebuilt: dict[int, str] = {}
    for n, _, text in seen:
        rebuilt[n] = rebuilt.get(n, "") + text
    assert rebuilt == dict(enumerate(lines, start=1))
