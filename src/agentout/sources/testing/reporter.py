"""``pytest --agent``'s report, rendered by a process started with the session.

Rendering needs the tokenizer's tables, ``pack`` and the formats: about 0.1 s of loading
(the tables' native loader holds the GIL, so a thread cannot hide it) that pytest would
otherwise spend after its last test. A child started when the session is configured loads
them while the tests run, on another core, then waits for the run on its stdin and
writes the report (the full one stored, as ``render`` does) to its stdout. The child is
the same interpreter with the same environment and directory, so its report is the one
pytest's process would render; if it cannot be started, fails or says nothing, pytest's
process renders the report itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import IO, Any

from agentout.process import python_module
from agentout.sources.testing.model import Run, run_to_json

__all__ = ["Reporter"]

_ENCODING = ("utf-8", "surrogatepass")  # a report can hold any text a test printed
_WAIT_SECONDS = 120.0  # a child that takes longer is stopped; pytest's process renders


class Reporter:
    """A warm renderer: ``render(run, ...)`` returns the report, or None to render here."""

    def __init__(self, tokenizer: str, argv: list[str] | None = None) -> None:
        command = argv or [*python_module("agentout.sources.testing.reporter"), tokenizer]
        self._child: subprocess.Popen[bytes] | None
        try:
            self._child = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        except OSError:
            self._child = None

    def render(self, run: Run, **settings: Any) -> str | None:
        child, self._child = self._child, None
        if child is None:
            return None
        request = json.dumps({"run": run_to_json(run), "settings": settings}, ensure_ascii=False)
        try:
            out, err = child.communicate(request.encode(*_ENCODING), timeout=_WAIT_SECONDS)
        except (OSError, subprocess.TimeoutExpired):  # died before reading, or stuck
            child.kill()
            child.communicate()
            return None
        if child.returncode != 0 or not out:
            return None  # rendered here instead, with its own warnings
        if err:  # a warning of the render (a store it could not write)
            sys.stderr.write(err.decode("utf-8", "replace"))
        return out.decode(*_ENCODING)

    def close(self) -> None:
        """Stop a child that was never asked (a session that ended before its report)."""
        child, self._child = self._child, None
        if child is not None:
            child.kill()
            child.wait()
            for stream in (child.stdin, child.stdout, child.stderr):
                if stream is not None:
                    stream.close()


def _serve(tokenizer: str, requests: IO[bytes], out: IO[bytes]) -> int:
    from agentout.sources.testing.model import run_from_json
    from agentout.sources.testing.report import render
    from agentout.tokens import get_tokenizer

    get_tokenizer(tokenizer).count("warm")  # the tables load now, while the tests run
    data = requests.read()
    if not data:  # pytest ended without a report
        return 0
    request = json.loads(data.decode(*_ENCODING))
    text = render(run_from_json(request["run"]), **request["settings"])
    out.write(text.encode(*_ENCODING))
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(_serve(sys.argv[1], sys.stdin.buffer, sys.stdout.buffer))
