"""agentout: program output for AI agents, within their token budget, nothing lost.

    >>> import agentout
    >>> agentout.count("hello world")
    2
"""

from __future__ import annotations

from agentout.budget import Budget
from agentout.pack import PRESETS, Packed, Preset, fits, pack
from agentout.records import Document, Record, Result, Stats, View
from agentout.tokens import (
    Chars4,
    Tokenizer,
    UnknownTokenizerError,
    count,
    count_stream,
    count_until,
    get_tokenizer,
)

__version__ = "0.1.0"

__all__ = [
    "PRESETS",
    "Budget",
    "Chars4",
    "Document",
    "Packed",
    "Preset",
    "Record",
    "Result",
    "Stats",
    "Tokenizer",
    "UnknownTokenizerError",
    "View",
    "__version__",
    "count",
    "count_stream",
    "count_until",
    "fits",
    "get_tokenizer",
    "pack",
]
