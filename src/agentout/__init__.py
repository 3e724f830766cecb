"""agentout: program output for AI agents, within their token budget, nothing lost.

>>> import agentout
>>> agentout.count("hello world")
2

The pipeline is source -> records -> pack -> format -> deliver: build a ``Result`` of
``Record``s, ``pack`` it into a budget (exact counts, whole records only), and
``deliver_records`` it inline or as a reference to the complete data in the private
``SpillStore``. Domain sources live in ``agentout.sources`` (data files, commands and
logs, test runs, collections, notes).
"""

from __future__ import annotations

import sys
import types

from agentout._lazy import attach
from agentout._version import __version__

TYPE_CHECKING = False  # as typing.TYPE_CHECKING, without importing typing (the hook is timed)

if TYPE_CHECKING:
    from agentout.deliver.dual import ToolResult, format_for_llm, format_for_user
    from agentout.deliver.hybrid import Delivery, deliver_jsonl, deliver_records
    from agentout.errors import AgentoutError, InputError
    from agentout.pack import PRESETS, Packed, Preset, pack
    from agentout.pack.budget import Budget
    from agentout.records import Document, Lines, Record, Result, Stats, View
    from agentout.store.spill import SpillRef, SpillStore
    from agentout.tokens import (
        Chars4,
        Tokenizer,
        UnknownTokenizerError,
        count,
        count_stream,
        count_until,
        fits,
        get_tokenizer,
    )
    from agentout.tokens.truncate import (
        smart_truncate,
        truncate_list,
        truncate_mapping,
        truncate_string,
    )

# The names load on first use (PEP 562): the pytest plugin lives in this package and is
# imported by every pytest run, so importing ``agentout`` itself must cost next to nothing.
_HOMES = {
    "agentout.pack.budget": ("Budget",),
    "agentout.deliver.hybrid": ("Delivery", "deliver_jsonl", "deliver_records"),
    "agentout.deliver.dual": ("ToolResult", "format_for_llm", "format_for_user"),
    "agentout.errors": ("AgentoutError", "InputError"),
    "agentout.pack": ("PRESETS", "Packed", "Preset", "pack"),
    "agentout.records": ("Document", "Lines", "Record", "Result", "Stats", "View"),
    "agentout.store.spill": ("SpillRef", "SpillStore"),
    "agentout.tokens": (
        "Chars4",
        "Tokenizer",
        "UnknownTokenizerError",
        "count",
        "count_stream",
        "count_until",
        "fits",
        "get_tokenizer",
    ),
    "agentout.tokens.truncate": (
        "smart_truncate",
        "truncate_list",
        "truncate_mapping",
        "truncate_string",
    ),
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}


if not TYPE_CHECKING:  # for type checkers the imports above are the module's names
    __getattr__, __dir__ = attach(__name__, _HOME_OF)


class _Package(types.ModuleType):
    """Keeps ``agentout.pack`` the function: importing a submodule binds it on its package
    under its own name, which for ``agentout.pack`` would hide the exported function."""

    def __setattr__(self, name: str, value: object) -> None:
        if name in _HOME_OF and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "PRESETS",
    "AgentoutError",
    "Budget",
    "Chars4",
    "Delivery",
    "Document",
    "InputError",
    "Lines",
    "Packed",
    "Preset",
    "Record",
    "Result",
    "SpillRef",
    "SpillStore",
    "Stats",
    "Tokenizer",
    "ToolResult",
    "UnknownTokenizerError",
    "View",
    "__version__",
    "count",
    "count_stream",
    "count_until",
    "deliver_jsonl",
    "deliver_records",
    "fits",
    "format_for_llm",
    "format_for_user",
    "get_tokenizer",
    "pack",
    "smart_truncate",
    "truncate_list",
    "truncate_mapping",
    "truncate_string",
]
