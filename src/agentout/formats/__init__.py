"""Renderers for a packed result. A format draws what pack chose; it never drops anything.

Each format module defines one class with ``name``, ``render(document)`` (the whole
output) and ``fragment(record, view)`` (what one record adds to it, which pack uses to
estimate before it checks the exact count of the whole render).
"""

from __future__ import annotations

from importlib import import_module
from typing import Protocol

from agentout.records import Document, Record, View

__all__ = ["FORMAT_NAMES", "Format", "UnknownFormatError", "get_format"]

# name -> module holding a class named Format_ ... kept lazy so the CLI starts fast.
_MODULES = {
    "records": "agentout.formats.records",
    "json": "agentout.formats.json",
    "toon": "agentout.formats.toon",
    "text": "agentout.formats.text",
    "csv": "agentout.formats.csv",
    "auto": "agentout.formats.auto",
    "raw": "agentout.formats.raw",
}
FORMAT_NAMES = tuple(_MODULES)


class Format(Protocol):
    @property
    def name(self) -> str: ...

    def render(self, document: Document) -> str: ...

    def fragment(self, record: Record, view: View) -> str: ...


class UnknownFormatError(ValueError):
    pass


def get_format(name: str | Format) -> Format:
    if not isinstance(name, str):
        return name
    if name not in _MODULES:
        raise UnknownFormatError(f"unknown format {name!r}; known: {', '.join(FORMAT_NAMES)}")
    module = import_module(_MODULES[name])
    fmt: Format = module.FORMAT
    return fmt
