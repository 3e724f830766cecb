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

from agentout.budget import Budget
from agentout.deliver import Delivery, deliver_jsonl, deliver_records
from agentout.dual import ToolResult, format_for_llm, format_for_user
from agentout.errors import AgentoutError, InputError
from agentout.pack import PRESETS, Packed, Preset, pack
from agentout.records import Document, Lines, Record, Result, Stats, View
from agentout.spill import SpillRef, SpillStore
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
from agentout.truncate import smart_truncate, truncate_list, truncate_mapping, truncate_string

__version__ = "0.1.0"

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
