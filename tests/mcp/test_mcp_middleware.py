"""Budgeting other servers' tools: ``@budgeted`` and ``budget_server``, checked through
the SDK's own client, which validates structured content against the output schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import validate
from mcp import Client
from mcp.server import Server
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ListToolsResult, TextContent, Tool
from mcp_support import links, run, structured_tokens, text_tokens, texts
from pydantic import BaseModel, Field

from agentout.mcp.middleware import BudgetMiddleware, budget_server, budgeted
from agentout.store.spill import SpillStore


class Hit(BaseModel):
    id: int
    title: str


class Page(BaseModel):
    total: int
    hits: list[Hit]


class Strict(BaseModel):
    model_config = {"extra": "forbid"}
    hits: list[Hit]


class AtLeast(BaseModel):
    hits: list[Hit] = Field(min_length=400)


def hits(n: int) -> list[Hit]:
    return [Hit(id=i, title=f"a fairly long title for hit number {i}") for i in range(n)]


def demo(budget: int = 300) -> MCPServer[Any]:
    server = MCPServer("demo")

    @server.tool()
    @budgeted(max_tokens=budget)
    def search(n: int) -> Page:
        """Search the index."""
        return Page(total=n, hits=hits(n))

    @server.tool()
    @budgeted(max_tokens=budget)
    def listing(n: int) -> list[Hit]:
        """List hits."""
        return hits(n)

    @server.tool()
    @budgeted(max_tokens=budget)
    async def log(n: int, ctx: Context) -> str:
        """A long log."""
        lines = [f"step {i}: fine" for i in range(n)]
        lines[n // 2] = "Traceback (most recent call last):"
        lines[n // 2 + 1] = "ValueError: the middle broke"
        return "\n".join(lines)

    @server.tool()
    @budgeted(max_tokens=budget)
    def strict(n: int) -> Strict:
        """No extra keys allowed."""
        return Strict(hits=hits(n))

    @server.tool()
    @budgeted(max_tokens=budget)
    def at_least(n: int) -> AtLeast:
        """A schema no cut can satisfy."""
        return AtLeast(hits=hits(n))

    return server


def session(server: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[CallToolResult]:
    async def go() -> list[CallToolResult]:
        async with Client(server) as client:
            await client.list_tools()  # the client validates what it listed
            return [await client.call_tool(name, arguments) for name, arguments in calls]

    return run(go)


def tool_list(server: Any) -> dict[str, Tool]:
    async def go() -> ListToolsResult:
        async with Client(server) as client:
            return await client.list_tools()

    return {tool.name: tool for tool in run(go).tools}


def spilled_json(store: SpillStore, result: CallToolResult) -> Any:
    (uri,) = links(result)
    return json.loads((store.root / uri.removeprefix("agentout://spill/")).read_text())


def test_the_tool_keeps_its_name_parameters_description_and_schema() -> None:
    plain = MCPServer("plain")

    @plain.tool()
    def search(n: int) -> Page:
        """Search the index."""
        return Page(total=n, hits=hits(n))

    wrapped, bare = tool_list(demo())["search"], tool_list(plain)["search"]
    assert wrapped.description == bare.description == "Search the index."
    assert wrapped.input_schema == bare.input_schema
    assert wrapped.output_schema == bare.output_schema
    assert wrapped.output_schema is not None


def test_a_small_result_is_untouched(store: SpillStore) -> None:
    (result,) = session(demo(), [("search", {"n": 2})])
    assert result.structured_content == Page(total=2, hits=hits(2)).model_dump()
    assert links(result) == []
    assert "agentout" not in (result.meta or {})


def test_a_model_result_keeps_whole_items_and_validates(store: SpillStore) -> None:
    server = demo()
    (result,) = session(server, [("search", {"n": 500})])
    assert not result.is_error
    assert text_tokens(result) <= 300
    assert structured_tokens(result) <= 300
    data = result.structured_content
    assert data["total"] == 500
    kept = len(data["hits"])
    assert 0 < kept < 500
    assert data["hits"] == [hit.model_dump() for hit in hits(kept)]
    validate(data, tool_list(server)["search"].output_schema)
    assert data["_agentout"]["complete"] == links(result)[0]
    assert spilled_json(store, result) == Page(total=500, hits=hits(500)).model_dump()
    assert texts(result).count('"id"') <= kept, "the text echo shows no more than the data"


def test_a_list_result_is_packed_as_fit_packs_it(store: SpillStore) -> None:
    (result,) = session(demo(), [("listing", {"n": 1000})])
    [text] = [block.text for block in result.content if block.type == "text"]
    *packed, note = text.splitlines(keepends=True)
    assert "total=1000" in packed[0]
    assert note.startswith("[agentout: all of it: agentout show mcp-")
    shown = int(packed[0].split("included=")[1].split()[0])
    assert shown >= 10
    assert text_tokens(result) <= 300
    assert spilled_json(store, result) == {"result": [hit.model_dump() for hit in hits(1000)]}


def test_a_text_result_keeps_the_error_lines(store: SpillStore) -> None:
    (result,) = session(demo(), [("log", {"n": 3000})])
    text = texts(result)
    assert "ValueError: the middle broke" in text
    assert "step 0: fine" in text
    assert "step 2999: fine" in text
    assert text_tokens(result) <= 300
    assert structured_tokens(result) <= 300
    shown = result.structured_content["result"]  # for clients that read only this
    assert shown.startswith("step 0: fine\n")
    assert "ValueError: the middle broke" in shown
    (uri,) = links(result)
    ref = uri.removeprefix("agentout://spill/")
    assert shown.endswith(f" · read_output ref={ref}]\n"), "it names the complete text"
    (uri,) = links(result)
    full = (store.root / uri.removeprefix("agentout://spill/")).read_text()
    assert full.count("\n") == 2999


def test_no_key_is_added_where_the_schema_forbids_it(store: SpillStore) -> None:
    server = demo()
    (result,) = session(server, [("strict", {"n": 500})])
    assert not result.is_error
    assert set(result.structured_content) == {"hits"}
    validate(result.structured_content, tool_list(server)["strict"].output_schema)
    assert result.meta["agentout"]["spilled"][0]["uri"] == links(result)[0]


def test_a_schema_no_cut_satisfies_gives_an_error_naming_the_file(store: SpillStore) -> None:
    (result,) = session(demo(), [("at_least", {"n": 500})])
    assert result.is_error
    assert "does not fit max_tokens=300 as valid structured content" in texts(result)
    assert len(spilled_json(store, result)["hits"]) == 500


def test_budgeted_also_works_without_parentheses(store: SpillStore) -> None:
    server = MCPServer("bare")

    @server.tool()
    @budgeted
    def words(n: int) -> str:
        """Many words."""
        return " ".join(["word"] * n) + "\n" + "x\n" * n

    (result,) = session(server, [("words", {"n": 20_000})])
    assert text_tokens(result) <= 5000
    assert links(result)


def test_a_bad_budget_fails_when_the_tool_is_defined() -> None:
    with pytest.raises(ValueError, match="max_tokens must be between 200"):
        budgeted(max_tokens=50)


# -- a whole server --------------------------------------------------------------------------


def test_budget_server_covers_every_tool_of_an_mcpserver(store: SpillStore) -> None:
    server = MCPServer("whole")

    @server.tool()
    def listing(n: int) -> list[Hit]:
        """List hits."""
        return hits(n)

    @server.tool()
    def lines(n: int) -> str:
        """Lines."""
        return "\n".join(f"line {i}" for i in range(n))

    middleware = budget_server(server, max_tokens=250)
    assert server.middleware[-1] is middleware

    async def unlisted() -> CallToolResult:
        async with Client(server) as client:  # no tools/list first: schemas come from server
            return await client.call_tool("listing", {"n": 800})

    first = run(unlisted)
    assert text_tokens(first) <= 250
    assert structured_tokens(first) <= 250
    small, big = session(server, [("lines", {"n": 3}), ("lines", {"n": 5000})])
    assert texts(small) == "line 0\nline 1\nline 2"
    assert text_tokens(big) <= 250
    assert "line 4999" in texts(big)


def test_budget_server_covers_a_low_level_server(store: SpillStore) -> None:
    schema = {
        "type": "object",
        "properties": {"rows": {"type": "array", "items": {"type": "integer"}}},
        "required": ["rows"],
        "additionalProperties": False,
    }

    async def list_tools(ctx: Any, params: Any) -> ListToolsResult:
        tool = Tool(name="rows", input_schema={"type": "object"}, output_schema=schema)
        return ListToolsResult(tools=[tool])

    async def call_tool(ctx: Any, params: Any) -> CallToolResult:
        rows = list(range(20_000))
        return CallToolResult(
            content=[TextContent(text=json.dumps({"rows": rows}))],
            structured_content={"rows": rows},
        )

    server: Server[Any] = Server("low", on_list_tools=list_tools, on_call_tool=call_tool)
    budget_server(server, max_tokens=400)
    (result,) = session(server, [("rows", {})])
    assert not result.is_error
    rows = result.structured_content["rows"]
    assert rows == list(range(len(rows)))
    assert 0 < len(rows) < 20_000
    validate(result.structured_content, schema)
    assert text_tokens(result) <= 400
    assert structured_tokens(result) <= 400
    assert spilled_json(store, result) == {"rows": list(range(20_000))}


def test_the_middleware_passes_other_messages_through(store: SpillStore) -> None:
    server = MCPServer("quiet")

    @server.resource("demo://thing")
    def thing() -> str:
        return "x" * 100_000

    server.middleware.append(BudgetMiddleware(max_tokens=200))

    async def go() -> Any:
        async with Client(server) as client:
            return await client.read_resource("demo://thing")

    assert run(go).contents[0].text == "x" * 100_000, "resources are read whole, on purpose"


def test_tool_spill_goes_to_the_given_store(tmp_path: Path) -> None:
    own = SpillStore(tmp_path / "own")
    server = MCPServer("own")

    @server.tool()
    @budgeted(max_tokens=200, store=own)
    def lines(n: int) -> str:
        """Lines."""
        return "\n".join(f"line {i}" for i in range(n))

    (result,) = session(server, [("lines", {"n": 2000})])
    (uri,) = links(result)
    assert (own.root / uri.removeprefix("agentout://spill/")).is_file()


# -- as good as the CLI --------------------------------------------------------------------


def issues(n: int) -> list[dict[str, Any]]:
    """Issue-like records with bodies of about 400 characters."""
    body = "The service drops requests under load when the pool is exhausted; " * 6
    return [
        {
            "number": 1000 + i,
            "title": f"Connection pool exhausted on worker {i} after deploy",
            "state": "open" if i % 3 else "closed",
            "labels": ["bug", "infra"],
            "body": body[: 380 + i % 40],
        }
        for i in range(n)
    ]


def test_seventy_three_issues_show_as_many_as_fit_does(store: SpillStore, tmp_path: Path) -> None:
    from agentout.sources.fit import fit

    server = MCPServer("issues")

    @server.tool()
    @budgeted(max_tokens=500)
    def list_issues() -> list[dict[str, Any]]:
        """All issues."""
        return issues(73)

    (result,) = session(server, [("list_issues", {})])
    assert text_tokens(result) <= 500
    assert structured_tokens(result) <= 500
    text = texts(result)
    assert "\n  " not in text  # compact, no indentation
    path = tmp_path / "issues.json"
    path.write_text(json.dumps(issues(73)))
    by_fit = fit(str(path), max_tokens=500).stats.included
    shown = text.count("number")
    assert by_fit >= 5
    assert abs(shown - by_fit) <= 1, (shown, by_fit, text)
    assert "total=73" in text or '"total":73' in text  # says how many it shows of all
    assert links(result)  # the complete result is kept


def test_several_lists_share_the_budget_and_each_says_what_it_shows(store: SpillStore) -> None:
    server = MCPServer("two")

    @server.tool()
    @budgeted(max_tokens=600)
    def board() -> dict[str, Any]:
        """Two lists."""
        return {"open": issues(40), "closed": issues(40), "as_of": "today"}

    (result,) = session(server, [("board", {})])
    text = texts(result)
    assert text_tokens(result) <= 600
    parts = [part for part in text.split("\nH ") if "total=40" in part]
    assert len(parts) == 2, text
    assert "list=open" in text
    assert "list=closed" in text
    shown = [int(part.split("included=")[1].split()[0]) for part in parts]
    assert min(shown) >= 2, shown  # the first list does not take the whole budget
    assert '"as_of":"today"' in text
