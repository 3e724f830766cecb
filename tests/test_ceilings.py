"""Budgets are ceilings, the envelope included: no output of ``fit``, ``records``, ``run``
(its delivery) or the MCP fitting exceeds the budget it was given, over generated inputs and
budgets from 20 to 5,000 tokens; the one exception is an output flagged ``over_budget``
that holds nothing but the format's envelope (no record, no line of the input)."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.deliver.text import TextSettings, deliver_output
from agentout.formats.raw import closing_fields
from agentout.mcp.fit import MIN_TOKENS, Limits, fit_records, fit_text
from agentout.sources.collection import query
from agentout.sources.fit import fit
from agentout.store.capture import Capture
from agentout.store.spill import SpillStore
from agentout.tokens import count

CEILING = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BUDGET = st.integers(min_value=20, max_value=5000)
WORD = st.sampled_from(["ok", "error:", "warning:", "id", "42", "é", "日本", "\t", "x" * 30])
VALUE = st.one_of(
    st.integers(-(10**6), 10**6),
    st.text(max_size=40),
    st.lists(WORD, max_size=4).map(" ".join),
    st.booleans(),
    st.none(),
)
ROW = st.dictionaries(st.sampled_from(["id", "name", "level", "msg", "tags"]), VALUE, max_size=5)
ROWS = st.lists(ROW, min_size=1, max_size=40)
LINE = st.lists(WORD, max_size=12).map(" ".join)
LINES = st.lists(LINE, min_size=1, max_size=300)


@CEILING
@given(rows=ROWS, budget=BUDGET, fmt=st.sampled_from(["records", "json", "toon", "text"]))
def test_fit_never_passes_its_budget(rows: list[dict[str, Any]], budget: int, fmt: str) -> None:
    data = "".join(json.dumps(row) + "\n" for row in rows).encode()
    packed = fit(io.BytesIO(data), max_tokens=budget, format=fmt, name="rows.jsonl")
    assert packed.stats.tokens == count(packed.text)
    if packed.stats.over_budget:
        assert packed.stats.included == 0
    else:
        assert packed.stats.tokens <= budget


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=ROWS, budget=BUDGET)
def test_records_never_pass_their_budget(rows: list[dict[str, Any]], budget: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rows.jsonl"
        path.write_text("".join(json.dumps(row) + "\n" for row in rows))
        store = SpillStore(Path(folder) / "spill")
        answer = query([path], max_tokens=budget, store=store)
        text = answer.text
    tokens = count(text)
    if "over_budget=true" in text.splitlines()[0]:
        assert "\nR " not in text  # the envelope alone
    else:
        assert tokens <= budget


@CEILING
@given(lines=LINES, budget=BUDGET, status=st.sampled_from([0, 1]))
def test_a_command_s_output_never_passes_its_budget(
    lines: list[str], budget: int, status: int
) -> None:
    data = "".join(line + "\n" for line in lines).encode()

    def delivered(tokens: int) -> str:
        with tempfile.TemporaryDirectory() as folder:
            capture = Capture(threshold=4096, store=SpillStore(Path(folder)))
            capture.feed(data)
            capture.close()
            settings = TextSettings(4096, max_tokens=tokens)
            return deliver_output(capture, settings, exit_status=status).text

    text = delivered(budget)
    if closing_fields(text).get("over_budget") == "true":
        shown = [line for line in text.splitlines() if not line.startswith("[")]
        assert shown == []  # the envelope alone: markers and the closing line
    elif count(text) > budget:
        # a budget below the smallest envelope (what a budget of 1 gives): the output as
        # printed, when it costs no more than that envelope, never larger than raw
        assert text == data.decode()
        assert count(text) <= count(delivered(1))


@CEILING
@given(lines=LINES, rows=ROWS, budget=st.integers(min_value=MIN_TOKENS, max_value=5000))
def test_the_mcp_fitting_never_passes_its_budget(
    lines: list[str], rows: list[dict[str, Any]], budget: int
) -> None:
    with tempfile.TemporaryDirectory() as folder:
        limits = Limits.of(budget, 0, store=SpillStore(Path(folder)))
        text = fit_text("\n".join(lines), limits).text
        assert count(text) <= budget
        packed = fit_records({"items": rows, "note": "x"}, limits, "[the complete result]")
        assert packed is None or count(packed) <= budget
