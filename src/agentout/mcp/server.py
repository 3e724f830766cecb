"""``agentout serve``: agentout's library as MCP tools, every result within its budget.

Each tool (one module under ``agentout.mcp.tools``) is a thin shell over the library call
the CLI makes, returned through ``results.to_result``: the packed text, a
``resource_link`` for each spilled file, and, where the result is data,
``structuredContent`` budgeted the same way. The server's own part of the spill store is
exposed as resources (``agentout://spill/NAME``).

Safety: files are read only under the roots (``Roots``) or from the server's store;
``run_command`` exists only when the server was given an allowlist; children never get
the server's stdin. Bad input becomes an error result (``isError``) with the reason.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import Resource

from agentout.errors import AgentoutError
from agentout.mcp.config import ServerConfig
from agentout.mcp.fit import SPILL_URI
from agentout.mcp.results import mime_type
from agentout.mcp.tools import TOOLS
from agentout.store.spill import NAME_PATTERN, SpillStore

__all__ = ["RESOURCE_READ_LIMIT", "ServerConfig", "create_server"]

RESOURCE_READ_LIMIT = 32 << 20  # a bigger spilled file is paged with read_output instead
_LISTED_RESOURCES = 500  # resources/list shows the newest this many spilled files

INSTRUCTIONS = (
    "agentout keeps every tool result within a token budget (max_tokens) without losing "
    "anything: what does not fit is kept in a private file, named in the result and linked "
    "as an agentout://spill/ resource; page through it with read_output."
)


def create_server(config: ServerConfig) -> MCPServer[Any]:
    """The MCP server with agentout's tools and the server's spill store as resources.
    With an object store, spills go to it through one uploader in the process (a
    bounded queue, a few threads, one client), not a process started per spill."""
    if config.store.remote_address is not None:
        from agentout.store.upload import in_process

        in_process(True)
    from agentout.process import keep_child_status

    keep_child_status()  # commands run from worker threads: their statuses readable
    server = _AgentoutServer(
        config.store,
        name="agentout",
        instructions=INSTRUCTIONS,
        version=_version(),
        log_level="WARNING",
    )
    for tool in TOOLS:
        tool.register(server, config)
    server.resource(
        SPILL_URI + "{name}",
        name="spilled",
        description="A result agentout kept complete (the files resources/list shows).",
    )(lambda name: _read_spilled(config.store, name))
    return server


class _AgentoutServer(MCPServer[Any]):
    """MCPServer whose resource list is the server's spilled files."""

    def __init__(self, store: SpillStore, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.store = store

    async def serve_streams(self, read: Any, write: Any) -> None:
        """Serve one connection over a stream pair, as ``run_stdio_async`` does over the
        SDK's stdio transport (agentout's own stdio transport calls this)."""
        lowlevel = self._lowlevel_server
        await lowlevel.run(read, write, lowlevel.create_initialization_options())

    async def list_resources(self) -> list[Resource]:
        listed = await super().list_resources()
        stored = [f for f in self.store.files() if NAME_PATTERN.match(f.path.name)]
        stored.sort(key=lambda f: (f.mtime, f.path.name))
        for stored_file in stored[-_LISTED_RESOURCES:]:
            name = stored_file.path.name
            listed.append(
                Resource(
                    uri=SPILL_URI + name,
                    name=name,
                    mime_type=mime_type(name),
                    size=stored_file.size,
                    description="a result agentout kept complete; page it with read_output",
                )
            )
        return listed

    async def read_resource(self, uri: Any, context: Any = None) -> Any:
        """As MCPServer reads it, with each spilled file's own MIME type."""
        contents = await super().read_resource(uri, context)
        name = str(uri).removeprefix(SPILL_URI)
        if not str(uri).startswith(SPILL_URI) or not isinstance(contents, list):
            return contents
        return [replace(content, mime_type=mime_type(name)) for content in contents]


def _read_spilled(store: SpillStore, name: str) -> str:
    try:
        with store.open_ref(name) as handle:
            data = handle.read(RESOURCE_READ_LIMIT + 1)
    except (AgentoutError, OSError) as exc:
        raise ResourceError(" ".join(str(exc).split()) or type(exc).__name__) from exc
    if len(data) > RESOURCE_READ_LIMIT:
        raise ResourceError(
            f"{name}: over {RESOURCE_READ_LIMIT >> 20} MiB; page it with read_output instead"
        )
    return data.decode("utf-8", "replace")


def _version() -> str:
    from agentout._version import __version__

    return __version__
