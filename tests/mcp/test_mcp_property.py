"""The budget claim, for random payloads and budgets, through the tool functions in process:
what the client receives never exceeds max_tokens (exact count of every text block, and
of the structured content as compact JSON), and a spilled file holds the complete result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult
from mcp_support import links, make_server, run, structured_tokens, text_tokens
from pydantic import BaseModel

from agentout.mcp.fit import MIN_TOKENS
from agentout.mcp.middleware import budgeted
from agentout.store.spill import SpillStore

EXAMPLES = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
BUDGET = st.integers(min_value=MIN_TOKENS, max_value=3000)
THRESHOLD = st.integers(min_value=0, max_value=30_000)
WORDS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\r"),
    max_size=120,
)


class Row(BaseModel):
    id: int
    label: str
    tags: list[str]


class Report(BaseModel):
    title: str
    rows: list[Row]
    log: str


def call_tool(server: MCPServer[Any], name: str, arguments: dict[str, Any]) -> CallToolResult:
    async def go() -> Any:
        return await server.call_tool(name, arguments)

    result = run(go)
    assert isinstance(result, CallToolResult)
    return result


def within(result: CallToolResult, budget: int) -> None:
    assert text_tokens(result) <= budget
    if result.structured_content is not None:
        assert structured_tokens(result) <= budget


def spilled(store: SpillStore, result: CallToolResult) -> list[str]:
    return [
        (store.root / uri.removeprefix("agentout://spill/")).read_text(encoding="utf-8")
        for uri in links(result)
    ]


ROWS = st.lists(
    st.builds(Row, id=st.integers(0, 10**9), label=WORDS, tags=st.lists(WORDS, max_size=4)),
    max_size=200,
)


@EXAMPLES
@given(
    rows=ROWS,
    log=st.lists(WORDS, max_size=300).map("\n".join),
    budget=BUDGET,
    threshold=THRESHOLD,
)
def test_a_budgeted_tool_never_exceeds_its_budget(
    store: SpillStore, rows: list[Row], log: str, budget: int, threshold: int
) -> None:
    server = MCPServer("property")
    report = Report(title="random", rows=rows, log=log)

    @server.tool()
    @budgeted(max_tokens=budget, inline_threshold_bytes=threshold, store=store)
    def structured() -> Report:
        """A model."""
        return report

    @server.tool()
    @budgeted(max_tokens=budget, inline_threshold_bytes=threshold, store=store)
    def listing() -> list[Row]:
        """A list."""
        return rows

    @server.tool()
    @budgeted(max_tokens=budget, inline_threshold_bytes=threshold, store=store)
    def text() -> str:
        """Text."""
        return log

    complete = report.model_dump()
    first = call_tool(server, "structured", {})
    within(first, budget)
    if first.is_error:  # only when no cut keeps the schema: never here, the lists may shrink
        raise AssertionError(first.content)
    if links(first):
        assert json.loads(spilled(store, first)[0]) == complete
    else:
        assert first.structured_content == complete

    second = call_tool(server, "listing", {})
    within(second, budget)
    everything = {"result": [row.model_dump() for row in rows]}
    if links(second):
        assert json.loads(spilled(store, second)[0]) == everything
    else:
        assert second.structured_content == everything

    third = call_tool(server, "text", {})
    within(third, budget)
    if links(third):
        assert spilled(store, third) == [log]
    else:
        assert third.content[0].text == log


@EXAMPLES
@given(lines=st.lists(WORDS, min_size=1, max_size=400), budget=BUDGET, grep=st.booleans())
def test_read_output_pages_never_exceed_the_budget(
    project: Path, store: SpillStore, lines: list[str], budget: int, grep: bool
) -> None:
    ref = store.write_text("\n".join(lines) + "\n", kind="run", suffix=".log")
    arguments: dict[str, Any] = {"ref": ref.ref, "max_tokens": budget}
    if grep:
        arguments["grep"] = "[a-m]"
    result = call_tool(make_server(project, store), "read_output", arguments)
    assert not result.is_error
    within(result, budget)


@EXAMPLES
@given(
    rows=ROWS.filter(bool),  # an empty file is an error (no records), not a page
    budget=BUDGET,
    threshold=THRESHOLD,
    mode=st.sampled_from(["agent", "verbose"]),
)
def test_query_records_never_exceeds_the_budget_and_spills_every_match(
    project: Path,
    store: SpillStore,
    rows: list[Row],
    budget: int,
    threshold: int,
    mode: str,
) -> None:
    data = [row.model_dump() for row in rows]
    (project / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in data))
    arguments = {
        "paths": ["rows.jsonl"],
        "mode": mode,
        "max_tokens": budget,
        "inline_threshold_bytes": threshold,
    }
    result = call_tool(make_server(project, store), "query_records", arguments)
    assert not result.is_error
    within(result, budget)
    files = spilled(store, result)
    if files:
        assert [json.loads(line) for line in files[0].splitlines()] == data
