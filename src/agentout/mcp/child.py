"""``agentout serve --http 0`` as a child process, for tests, benchmarks and scripts.

The server picks a free port (on 127.0.0.1 unless ``--host`` says otherwise) and prints
its URL on stderr first thing;
this starts it, waits a bounded time for that line, yields the URL, and always ends
the child (SIGTERM, then SIGKILL).
"""

from __future__ import annotations

import contextlib
import re
import subprocess
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from agentout.process import python_module

__all__ = ["SERVE", "serve_http"]

SERVE = [*python_module("agentout"), "serve"]

_URL = re.compile(r"http://\S+:\d+/mcp")


@contextlib.contextmanager
def serve_http(
    args: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    wait: float = 30.0,
) -> Iterator[str]:
    """Run ``agentout serve --http 0 ARGS``; yield its URL; end it on exit."""
    process = subprocess.Popen(
        [*SERVE, "--http", "0", *args],
        env=None if env is None else dict(env),
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        stderr = process.stderr
        first: list[str] = []
        reader = threading.Thread(target=lambda: first.append(stderr.readline()), daemon=True)
        reader.start()
        reader.join(wait)  # bounded: a server that never says where it listens fails
        found = _URL.search(first[0] if first else "")
        if found is None:
            raise RuntimeError(
                f"agentout serve --http did not start: {first!r}, exit {process.poll()}"
            )
        yield found.group(0)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
