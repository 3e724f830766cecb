"""`agentout serve` under load: 1,000 tool calls from 10 concurrent clients over HTTP.

The server runs as a child process (`agentout serve --http 0`, streamable HTTP on
127.0.0.1); each client is the MCP SDK's own `Client` with its own session. Two tools:
`count_tokens` on a short text, and `read_output` paging a 1 MB spilled log (a different
line range each call, so every call reads the whole file). Every call must succeed
(no exception, no `isError`), and every result must be within its max_tokens.

Peer, measured in the same run: the same library call made directly in this process
(`agentout.count`, `agentout.page.page`), so the ratio is the cost of MCP (JSON-RPC, HTTP,
the SDK, argument validation) plus, under load, queueing for the machine's cores. A
single client calling one at a time is measured too, to separate the two.

Bounded and self-stopping: a fixed number of calls, a deadline on the whole load (the
section says FAIL if it passes), and the server is always terminated.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from _common import WALL, quick, ratio, seconds, table, verdict
from agentout.mcp.child import serve_http
from agentout.page import LineRange, page
from agentout.spill import SpillStore
from agentout.tokens import count

SERVE = [sys.executable, "-c", "from agentout.cli import main; main()", "serve"]
TEXT = "The quick brown fox jumps over the lazy dog; agentout counts it exactly. " * 4
PAGE_TOKENS = 2000
DEADLINE = 600  # seconds for the whole load; it normally takes well under a minute


def settings() -> tuple[int, int, int]:
    """(calls, clients, bytes of the spilled file)."""
    return (100, 4, 100_000) if quick() else (1000, 10, 1_000_000)


def log_file(size: int) -> str:
    lines, total, n = [], 0, 0
    while total < size:
        n += 1
        level = "ERROR" if n % 97 == 0 else "INFO"
        line = f"2025-01-01T00:00:{n % 60:02d} {level} worker-{n % 8} processed item {n}\n"
        lines.append(line)
        total += len(line)
    return "".join(lines)[:size]


def server(root: Path, store: Path) -> contextlib.AbstractContextManager[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENTOUT_")}
    env["AGENTOUT_SPILL_DIR"] = str(store)
    env["AGENTOUT_CACHE_DIR"] = str(root / "cache")
    return serve_http(["--root", str(root)], env)


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: {"count": [], "page": []})
    errors: list[str] = field(default_factory=list)
    over_budget: int = 0
    calls: int = 0


def arguments(i: int, ref: str, lines: int) -> tuple[str, str, dict[str, Any]]:
    if i % 2 == 0:
        return "count", "count_tokens", {"text": TEXT}
    first = 1 + (i * 7919) % max(1, lines - 100)
    return "page", "read_output", {"ref": ref, "lines": f"{first}:", "max_tokens": PAGE_TOKENS}


async def client_run(url: str, ref: str, lines: int, calls: list[int], tally: Tally) -> None:
    from mcp import Client

    async with Client(url, read_timeout_seconds=120) as client:
        for i in calls:
            kind, tool, args = arguments(i, ref, lines)
            start = WALL()
            try:
                result = await client.call_tool(tool, args)
            except Exception as exc:  # counted, never hidden: the section fails
                tally.errors.append(f"{tool}: {type(exc).__name__}: {exc}")
                continue
            tally.latencies[kind].append(WALL() - start)
            tally.calls += 1
            if result.is_error:
                tally.errors.append(f"{tool}: {result.content[0].text[:200]}")
            elif kind == "page" and count(result.content[0].text) > PAGE_TOKENS:
                tally.over_budget += 1


def load(url: str, ref: str, lines: int, total: int, clients: int) -> tuple[Tally, float, bool]:
    import anyio

    tally = Tally()
    shares = [list(range(c, total, clients)) for c in range(clients)]

    async def go() -> bool:
        with anyio.move_on_after(DEADLINE) as scope:
            async with anyio.create_task_group() as group:
                for share in shares:
                    group.start_soon(client_run, url, ref, lines, share, tally)
        return not scope.cancelled_caught

    start = WALL()
    finished = anyio.run(go)
    return tally, WALL() - start, finished


def side_by_side(
    url: str, ref: str, lines: int, store: SpillStore, n: int
) -> tuple[dict[str, list[float]], dict[str, list[float]], int]:
    """One client, one call at a time, each MCP call right after the same library call
    made directly in this process (the peer), so both see the same machine load."""
    import anyio
    from mcp import Client

    peer: dict[str, list[float]] = {"count": [], "page": []}
    mcp: dict[str, list[float]] = {"count": [], "page": []}
    failures = 0

    async def go() -> None:
        with anyio.fail_after(DEADLINE):
            async with Client(url, read_timeout_seconds=120) as client:
                await calls(client)

    async def calls(client: Any) -> None:
        nonlocal failures
        for i in range(n):
            kind, tool, args = arguments(i, ref, lines)
            start = WALL()
            if kind == "count":
                count(args["text"])
            else:
                span = LineRange.parse(args["lines"])
                page(ref, lines=span, max_tokens=PAGE_TOKENS, store=store)
            peer[kind].append(WALL() - start)
            start = WALL()
            result = await client.call_tool(tool, args)
            mcp[kind].append(WALL() - start)
            failures += bool(result.is_error)

    anyio.run(go)
    return peer, mcp, failures


def main() -> str:
    total, clients, size = settings()
    work = Path(tempfile.mkdtemp(prefix="agentout-bench-mcp-"))
    try:
        store = SpillStore(work / "store")
        spilled = store.write_text(log_file(size), kind="run", suffix=".log")
        with server(work, store.root) as url:
            n = min(total, 200)
            peer, single, failures = side_by_side(url, spilled.ref, spilled.lines, store, n)
            loaded, wall, finished = load(url, spilled.ref, spilled.lines, total, clients)
    finally:
        shutil.rmtree(work, ignore_errors=True)

    rows = []
    for kind, label in (("count", "`count_tokens` (short text)"), ("page", "`read_output` page")):
        base = statistics.median(peer[kind])
        one = statistics.median(single[kind])
        many = loaded.latencies[kind]
        p95 = sorted(many)[int(len(many) * 0.95) - 1] if many else float("nan")
        rows.append(
            [
                label,
                seconds(base),
                seconds(one),
                ratio(one / base),
                seconds(statistics.median(many)),
                seconds(p95),
                ratio(statistics.median(many) / base),
            ]
        )
    ok = finished and not (loaded.errors or loaded.over_budget or failures)
    ok = ok and loaded.calls == total
    errors = "; ".join(loaded.errors[:3]) or "none"
    return "\n\n".join(
        [
            "## MCP server under load",
            f"`agentout serve --http 0` as a child process; {total:,} tool calls from {clients} "
            "concurrent clients (the MCP SDK's own `Client`, one session each) over streamable "
            f"HTTP on 127.0.0.1, half `count_tokens`, half `read_output` pages "
            f"(max_tokens={PAGE_TOKENS}) of a {size / 1e6:g} MB spilled log. Peer: the same "
            "library call made directly in this process, each right before the MCP call by one "
            f"client ({len(peer['count']) + len(peer['page'])} pairs); ratio = MCP median / "
            "direct median. Under load the latency includes waiting for the 2 cores.",
            table(
                [
                    "call",
                    "direct (peer)",
                    "MCP, 1 client",
                    "ratio",
                    f"MCP, {clients} clients",
                    "p95",
                    "ratio",
                ],
                rows,
            ),
            f"{loaded.calls:,} calls answered in {seconds(wall)} "
            f"({loaded.calls / wall:,.0f} calls/s); errors: {len(loaded.errors)} ({errors}); "
            f"pages over their budget: {loaded.over_budget}.",
            f"**{total:,} calls, zero errors, every page within budget, "
            f"within the {DEADLINE} s deadline: {verdict(ok)}**",
        ]
    )


if __name__ == "__main__":
    start = time.perf_counter()
    print(main())
    print(f"\n({time.perf_counter() - start:.1f} s)", file=sys.stderr)
