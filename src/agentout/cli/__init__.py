"""The ``agentout`` command: thin shells over the library. See ``agentout --help``."""

from __future__ import annotations

import gc
import sys

__all__ = ["main"]


def main() -> None:
    """``agentout``: the forms an agent's hook runs before and for every shell command
    (``agentout hook AGENT``, ``agentout run -- CMD``) are read without click; everything
    else goes to the click group."""
    from agentout.agents.hook_client import standard_streams

    standard_streams()  # a closed stdout is written to as nowhere, not as None
    if sys.argv[1:2] == ["hook"] and len(sys.argv) == 3 and not sys.argv[2].startswith("-"):
        # No cyclic garbage collection while the hook answers: it runs around every tool
        # call, is done within its time limit (seconds) on a bounded payload, and its
        # imports and the parsed payload would otherwise be walked again and again by
        # collections that find next to nothing. Reference counting still frees the rest.
        gc.disable()
        try:
            from agentout.agents.hook import main as hook

            status = hook(sys.argv[2:])
        finally:
            _exiting()
        sys.exit(status)
    try:
        if sys.argv[1:2] == ["run"]:
            if "--capture" in sys.argv[2:]:
                from agentout.cli import run_capture

                run_capture.start(sys.argv[2:])  # exits, unless click must read the line
            from agentout.cli import run_client

            if run_client.main(sys.argv[2:]):
                return  # pragma: no cover - it exits
        from agentout.cli.main import main as full

        full()
    except SystemExit:  # every command ends so, its answer given
        _exiting()
        raise


def _exiting() -> None:
    """The process ends: what it made is frozen (``gc.freeze``), so the full collection
    the interpreter runs on its way out does not walk every module and object again
    (5-10 ms of a small command; it finds nothing the end of the process would not
    free). Called once all is printed and written; the collector is on, as it was."""
    gc.freeze()
    gc.enable()
