"""Bench-only pytest plugin: the time agentout's pytest plugin itself spends in a run.

    PYTHONPATH=bench AGENTOUT_BENCH_CLOCK=out.txt pytest -p _plugin_clock --agent

Loaded with ``-p`` it is imported before pytest loads the ``pytest11`` entry points, so it
can wrap, before pluggy registers them, every hook of the plugin module and of the
recorder (constructor included) in a ``perf_counter`` accumulator. The imports of the
plugin and the recorder are timed here too; the report's own imports, the tokenizer and
the rendering run inside ``pytest_sessionfinish``, which is wrapped. pluggy's dispatch of
these hooks is estimated (one more implementation in a hook call, measured here, times the
calls). Not counted: option parsing. At the end it writes the seconds spent to
``$AGENTOUT_BENCH_CLOCK`` as a JSON line: seconds by hook, calls by hook, the seconds
spent loading the tokenizer's tables in pytest's process (part of
``pytest_sessionfinish``, when the report is rendered there), the estimated dispatch
seconds, and the CPU seconds of pytest's children (the process that renders the report).

A/B timings of whole runs measure the same cost with the machine's noise on top; on a
shared machine that noise is larger than the cost, so the bench reports both.
"""

from __future__ import annotations

import functools
import json
import os
import time
from collections.abc import Callable
from typing import Any

import pytest

_spent: dict[str, float] = {}  # by hook: what the plugin spends, summed
_calls: dict[str, int] = {}
_inner: dict[str, float] = {}  # parts of a hook's time, shown apart, never summed again


def _timed(
    function: Callable[..., Any], spent: dict[str, float] = _spent, calls: dict[str, int] = _calls
) -> Callable[..., Any]:
    name = function.__name__

    @functools.wraps(function)  # keeps pluggy's hookimpl marks; pluggy unwraps the signature
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.perf_counter() - start
            calls[name] = calls.get(name, 0) + 1

    return timed


def _own_cost() -> float:
    """Seconds the wrapper adds to what it records for one call: the recorded span of a
    call that does nothing (the best of a few batches)."""
    timed = _timed(lambda: None)
    best = float("inf")
    for _ in range(5):
        _spent.clear()
        _calls.clear()
        for _ in range(2000):
            timed()
        best = min(best, _spent["<lambda>"] / _calls["<lambda>"])
    _spent.clear()
    _calls.clear()
    return best


def _dispatch_cost() -> float:
    """Seconds pluggy spends to call one more hook implementation (not timed above):
    a hook called with one implementation and with two, the best of a few batches."""
    import pluggy

    spec, impl = pluggy.HookspecMarker("clock"), pluggy.HookimplMarker("clock")

    class Spec:
        @spec
        def hook(self, report: object) -> None: ...

    class Impl:
        @impl
        def hook(self, report: object) -> None:
            return None

    def best(manager: pluggy.PluginManager) -> float:
        fastest = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(2000):
                manager.hook.hook(report=None)
            fastest = min(fastest, (time.perf_counter() - start) / 2000)
        return fastest

    manager = pluggy.PluginManager("clock")
    manager.add_hookspecs(Spec)
    manager.register(Impl(), name="one")
    one = best(manager)
    manager.register(Impl(), name="two")
    return max(0.0, best(manager) - one)


_PER_CALL = _own_cost()
_DISPATCH = _dispatch_cost()
_start = time.perf_counter()
from agentout import tokens  # noqa: E402
from agentout.sources.testing import plugin, recorder  # noqa: E402

_spent["import"] = time.perf_counter() - _start

for _module_or_class in (plugin, recorder._Describer, recorder.Recorder):
    for _name, _value in list(vars(_module_or_class).items()):
        if callable(_value) and (_name.startswith("pytest_") or _name == "__init__"):
            setattr(_module_or_class, _name, _timed(_value))


# Loading the exact tokenizer's tables happens inside pytest_sessionfinish: shown apart.
tokens.ExactBPE.__init__ = _timed(tokens.ExactBPE.__init__, _inner, {})  # type: ignore[method-assign]


@pytest.hookimpl(trylast=True)
def pytest_unconfigure() -> None:
    target = os.environ.get("AGENTOUT_BENCH_CLOCK")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            # less what the wrapper itself cost, so a hook called 20,000 times is not inflated
            spent = {k: max(0.0, v - _calls.get(k, 0) * _PER_CALL) for k, v in _spent.items()}
            import resource

            children = resource.getrusage(resource.RUSAGE_CHILDREN)  # the report's process
            line = {
                "hooks": spent,
                "calls": _calls,
                "tables": _inner.get("__init__", 0.0),
                "dispatch": _DISPATCH * sum(_calls.values()),
                "children_cpu": children.ru_utime + children.ru_stime,
            }
            out.write(json.dumps(line, sort_keys=True) + "\n")
