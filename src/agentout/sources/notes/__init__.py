"""Notes as context: a folder of Markdown notes as N/S/E/B records (as qipu prints them).

    >>> from agentout import pack
    >>> from agentout.sources.notes import index_result, load_vault
    >>> vault = load_vault("examples/vault")
    >>> print(pack(index_result(vault), max_tokens=400).text)  # doctest: +SKIP

``load_vault`` reads (and caches) a folder; ``index_result``, ``context_result``,
``tree_result`` and ``path_result`` build the results the ``agentout notes`` commands
pack and print.
"""

from __future__ import annotations

from agentout.sources.notes.graph import DIRECTIONS, Direction, Edge
from agentout.sources.notes.parse import Link, NoteError, ParsedNote, parse_note
from agentout.sources.notes.records import (
    WARNING,
    context_result,
    index_result,
    path_result,
    tree_result,
)
from agentout.sources.notes.vault import (
    MAX_NOTE_BYTES,
    UnknownNoteError,
    Vault,
    default_cache_dir,
    load_vault,
)

__all__ = [
    "DIRECTIONS",
    "MAX_NOTE_BYTES",
    "WARNING",
    "Direction",
    "Edge",
    "Link",
    "NoteError",
    "ParsedNote",
    "UnknownNoteError",
    "Vault",
    "context_result",
    "default_cache_dir",
    "index_result",
    "load_vault",
    "parse_note",
    "path_result",
    "tree_result",
]
