"""What a client receives from docs/mcp.md's example server (`@budgeted` tools), called
through the MCP SDK's own client in this process:

    python3 examples/docs/budgeted.py search|build_log

prints the result's text blocks (for a list of them, the first and the last two), each
`resource_link`, the structuredContent and agentout's `_meta`, as docs/mcp.md shows them.
The spill store is $AGENTOUT_SPILL_DIR's.
"""

import json
import sys

import anyio
from mcp import Client
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from agentout.mcp import budgeted


class Hit(BaseModel):
    id: int
    title: str
    score: float


server = MCPServer("search")


@server.tool()
@budgeted(max_tokens=400, inline_threshold_bytes=2048)
def search(query: str, limit: int = 1000) -> list[Hit]:
    """Search the catalogue."""
    return [Hit(id=i, title=f"{query} result {i}", score=round(1 / (i + 1), 3)) for i in range(limit)]


@server.tool()
@budgeted(max_tokens=400)
def build_log() -> str:
    """The last build's log."""
    lines = [f"[{i:04d}] compiling src/module_{i}.c" for i in range(2000)]
    lines[1234] = "src/module_1234.c:17:5: error: 'size' undeclared (first use in this function)"
    return "\n".join(lines)


async def main(tool: str) -> None:
    arguments = {"query": "tent"} if tool == "search" else {}
    async with Client(server) as client:
        await client.list_tools()  # so the client validates structured content
        result = await client.call_tool(tool, arguments)
    texts = [block.text for block in result.content if block.type == "text"]
    if len(texts) > 1:
        print(f"{len(texts)} text blocks; the first and the last two:")
        texts = [texts[0], "…", *texts[-2:]]
    print("\n".join(texts))
    for block in result.content:
        if block.type == "resource_link":
            print(json.dumps(block.model_dump(mode="json", by_alias=True, exclude_none=True)))
    print("structuredContent:", json.dumps(result.structured_content, ensure_ascii=False))
    meta = (result.meta or {}).get("agentout")
    print("_meta:", json.dumps({"agentout": meta}, ensure_ascii=False))


anyio.run(main, sys.argv[1])
