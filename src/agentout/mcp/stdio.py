"""MCP over stdio, one JSON-RPC message a line, answering every request it received.

The SDK's own stdio transport (``mcp.server.stdio``, 2.3) drops two things this one
keeps (upstream: modelcontextprotocol/python-sdk#2751 and #2678):

- every line is answered as JSON-RPC 2.0 says (``agentout.mcp.wire``): one that is not
  JSON gets ``-32700 Parse error`` with ``"id": null``, JSON that is no JSON-RPC message
  (an odd id, nesting too deep to read) ``-32600 Invalid Request``, with the request's
  id when it has a usable one; the SDK only logs both, and dies on a deep line;
- when stdin ends, the requests already received are still answered before the server
  exits (the SDK cancels them): the commands calls started are stopped first (stdin
  closing is the client's "stop"), then the answers are awaited, at most
  ``DRAIN_SECONDS``.

While serving, fd 0 reads the null device and fd 1 writes to stderr, so nothing a
library prints and no child can touch the protocol's channel; both are restored after.
Reading waits on the descriptor (cancellable: a signal ends the server even while the
client keeps stdin open); a regular file or device is read in a worker thread.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
from mcp.shared.message import SessionMessage
from mcp.types import (
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
)

from agentout.mcp.calls import Calls
from agentout.mcp.wire import Refused, read_line

__all__ = ["DRAIN_SECONDS", "serve_stdio"]

DRAIN_SECONDS = 30.0  # after stdin ends, how long received requests may take to be answered
MAX_LINE = 64 << 20  # bytes of one message, as over HTTP; a longer line is refused unread
_READ_BYTES = 1 << 16


async def serve_stdio(server: Any, calls: Calls, *, drain: float = DRAIN_SECONDS) -> None:
    """Serve ``server`` (agentout's ``MCPServer``) on this process's stdin and stdout."""
    with _wire() as (wire_in, wire_out):
        await _Transport(wire_in, wire_out, calls, drain).serve(server)


@contextlib.contextmanager
def _wire() -> Iterator[tuple[int, int]]:
    """Private copies of fd 0 and 1 for the protocol; fd 0 and 1 diverted meanwhile."""
    wire_in, wire_out = os.dup(0), os.dup(1)  # not inherited by children
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
        os.dup2(2, 1)
        yield wire_in, wire_out
    finally:
        os.close(null)
        with contextlib.suppress(OSError):
            os.dup2(wire_in, 0)
            os.dup2(wire_out, 1)
        os.close(wire_in)
        os.close(wire_out)


class _Transport:
    def __init__(self, wire_in: int, wire_out: int, calls: Calls, drain: float) -> None:
        self.wire_in, self.wire_out, self.calls, self.drain = wire_in, wire_out, calls, drain
        self.pending: Counter[str | int] = Counter()  # requests received, not yet answered
        self.answered = anyio.Event()  # set whenever the last pending request is answered
        self.write_lock = anyio.Lock()
        self.gone = False

    async def serve(self, server: Any) -> None:
        inbound, server_reads = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        server_writes, outbound = anyio.create_memory_object_stream[SessionMessage](0)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._write, outbound)  # ends when the server closes its side
            async with anyio.create_task_group() as reading:
                reading.start_soon(self._read, inbound)
                await server.serve_streams(server_reads, server_writes)
                reading.cancel_scope.cancel()
            await server_writes.aclose()

    # -- reading ------------------------------------------------------------------------

    async def _read(self, inbound: Any) -> None:
        async with inbound:
            async for line in self._lines():
                message = await self._message(line)
                if message is None:
                    continue
                if isinstance(message, JSONRPCRequest):
                    self.pending[message.id] += 1
                elif isinstance(message, JSONRPCNotification):
                    self._forget_cancelled(message)
                await inbound.send(SessionMessage(message))
            # stdin ended: the client is done. Stop what calls started, answer the rest.
            self.calls.stop()
            with anyio.move_on_after(self.drain):
                while +self.pending:
                    self.answered = anyio.Event()
                    await self.answered.wait()

    def _forget_cancelled(self, message: JSONRPCNotification) -> None:
        """A request the client cancelled is never answered: do not wait for it."""
        if message.method == "notifications/cancelled" and isinstance(message.params, dict):
            request = message.params.get("requestId")
            if isinstance(request, (str, int)) and not isinstance(request, bool):
                self._settle(request)

    def _settle(self, request: str | int) -> None:
        if self.pending[request] > 0:
            self.pending[request] -= 1
        if not +self.pending:
            self.answered.set()

    async def _lines(self) -> AsyncIterator[bytes]:
        """Each line of stdin; one longer than ``MAX_LINE`` is answered and skipped, never
        held whole."""
        held = bytearray()
        skipping = False  # inside a line already refused as too long
        async for chunk in self._chunks():
            held += chunk
            start = 0
            while (end := held.find(b"\n", start)) >= 0:
                if skipping or end - start > MAX_LINE:
                    if not skipping:
                        await self._too_long()
                    skipping = False
                else:
                    yield bytes(held[start:end])
                start = end + 1
            del held[:start]
            if len(held) > MAX_LINE:
                if not skipping:
                    await self._too_long()
                skipping = True
                held.clear()
        if held and not skipping:
            yield bytes(held)

    async def _chunks(self) -> AsyncIterator[bytes]:
        mode = os.fstat(self.wire_in).st_mode
        waitable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
        while True:
            if waitable:
                await anyio.wait_readable(self.wire_in)
                chunk = os.read(self.wire_in, _READ_BYTES)
            else:
                chunk = await anyio.to_thread.run_sync(os.read, self.wire_in, _READ_BYTES)
            if not chunk:
                return
            yield chunk

    async def _too_long(self) -> None:
        why = f"Parse error: a message over {MAX_LINE >> 20} MiB"
        body = ErrorData(code=PARSE_ERROR, message=why)
        await self._emit(JSONRPCError(jsonrpc="2.0", id=None, error=body))

    async def _message(self, line: bytes) -> JSONRPCMessage | None:
        """The message on ``line``; None after answering a line that holds none."""
        read = read_line(line)
        if isinstance(read, Refused):
            await self._emit(read.answer)
            return None
        return read

    # -- writing ------------------------------------------------------------------------

    async def _write(self, outbound: Any) -> None:
        async with outbound:
            async for item in outbound:
                message = item.message
                await self._emit(message)
                if isinstance(message, (JSONRPCResponse, JSONRPCError)) and message.id is not None:
                    self._settle(message.id)

    async def _emit(self, message: JSONRPCMessage) -> None:
        data = message.model_dump_json(by_alias=True, exclude_unset=True).encode() + b"\n"
        async with self.write_lock:
            if self.gone:
                return  # the client closed its end: nothing more can reach it
            try:
                await anyio.to_thread.run_sync(_write_all, self.wire_out, data)
            except OSError:
                self.gone = True


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
