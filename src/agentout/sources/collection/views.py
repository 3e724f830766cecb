"""What a record shows: a terse identity view, the agent's summary view, every field.

A record of a collection becomes a ``Record`` whose views pack chooses between:

- ``agent`` mode: (identity, summary). The summary view is, by default, the id, the
  name or title, the severity-like fields (``SEVERITY_FIELDS``) and every field whose name
  contains ``summary``, a mapping flattened to its own fields (TMKB's ``agent_summary:
  {threat, check, fix}`` shows as ``threat=... check=... fix=...``). A record with none of
  these (a log line, say) shows its top-level scalar fields instead.
- ``verbose`` mode: (identity, summary, every non-empty field, then ``_source``: where
  the record is).

A view file (YAML or JSON) names the fields per mode, replacing the defaults::

    agent: [id, name, severity, agent_summary, attack_scenario.narrative]
    verbose: "*"        # or a list of fields

A name may be a dotted path into nested mappings (and list indexes); it is shown under
the name as written. ``*`` means every field.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agentout.errors import InputError
from agentout.records import Record, is_empty
from agentout.sources.collection.load import Item

__all__ = [
    "ID_FIELDS",
    "MISSING",
    "MODES",
    "NAME_FIELDS",
    "SEVERITY_FIELDS",
    "ViewSpec",
    "field_value",
    "record_id",
    "to_record",
]

MODES = ("agent", "verbose")
ID_FIELDS = ("id", "_id", "key", "uuid", "slug")
NAME_FIELDS = ("name", "title")
SEVERITY_FIELDS = ("severity", "priority", "likelihood", "risk", "level", "status")
ALL = "*"
MISSING: Any = object()  # what field_value returns for a path that is not there
_SUMMARY = re.compile("summary", re.IGNORECASE)


@dataclass(frozen=True)
class ViewSpec:
    """Fields per mode; None keeps the default rule (see the module docstring)."""

    agent: tuple[str, ...] | None = None
    verbose: tuple[str, ...] | None = None

    @classmethod
    def from_mapping(cls, data: Any, source: str = "<view>") -> ViewSpec:
        if not isinstance(data, Mapping):
            raise InputError("a view file is a mapping: agent: [fields], verbose: [fields]", source)
        unknown = sorted(set(data) - set(MODES))
        if unknown:
            raise InputError(
                f"unknown mode {unknown[0]!r} in view file; known: agent, verbose", source
            )
        return cls(**{mode: _fields(data[mode], mode, source) for mode in MODES if mode in data})

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> ViewSpec:
        """Read a YAML or JSON view file (JSON is YAML, so one safe loader reads both)."""
        from agentout.read.safe_yaml import load_documents

        name = os.fspath(path)
        try:
            with open(name, encoding="utf-8") as handle:
                text = handle.read()
        except OSError as exc:
            from agentout.read.text import unreadable

            raise unreadable(exc, name) from None
        except UnicodeDecodeError:
            raise InputError("cannot read the view file: not UTF-8 text", name) from None
        documents = list(load_documents(text, name))
        return cls.from_mapping(documents[0] if documents else None, name)


def _fields(value: Any, mode: str, source: str) -> tuple[str, ...]:
    if value == ALL:
        return (ALL,)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
        raise InputError(f"{mode}: expected a list of field names or '*'", source)
    return tuple(value)


def field_value(data: Any, path: str) -> Any:
    """The value at a dotted path (``a.b.0.c``), or ``MISSING``; an exact key wins."""
    if isinstance(data, dict) and path in data:
        return data[path]
    current = data
    for part in path.split("."):
        if isinstance(current, dict) and part in current:
            current = current[part]
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return MISSING
    return current


def _id_field(data: Mapping[str, Any]) -> str | None:
    """The first of ``ID_FIELDS`` holding a scalar."""
    for name in ID_FIELDS:
        value = data.get(name)
        if value is not None and not isinstance(value, (dict, list)):
            return name
    return None


def record_id(data: Mapping[str, Any]) -> str | None:
    name = _id_field(data)
    return None if name is None else str(data[name])


def _identity(item: Item) -> dict[str, Any]:
    """The tersest view: the id (else where the record is) and the name or title."""
    data = item.data
    id_field = _id_field(data)
    view: dict[str, Any] = (
        {"_source": item.source} if id_field is None else {id_field: data[id_field]}
    )
    for name in NAME_FIELDS:
        if isinstance(data.get(name), str) and data[name]:
            view[name] = data[name]
            break
    return view


def _flatten_into(view: dict[str, Any], name: str, value: Any, data: Mapping[str, Any]) -> None:
    """A summary mapping's fields at top level; prefixed when the name is taken."""
    if not isinstance(value, Mapping):
        view[name] = value
        return
    for key, inner in value.items():
        label = str(key)
        if label in view or label in data:
            label = f"{name}.{label}"
        view[label] = inner


def _default_agent(item: Item) -> dict[str, Any]:
    data = item.data
    view = _identity(item)
    named = any(n in view for n in NAME_FIELDS)
    for name in SEVERITY_FIELDS:
        value = data.get(name)
        if not is_empty(value) and not isinstance(value, (dict, list)):
            view[name] = value
    summarised = False
    for name, value in data.items():
        if _SUMMARY.search(name) and not is_empty(value) and name not in view:
            _flatten_into(view, name, value, data)
            summarised = True
    if not named and not summarised:  # a log line, a row: its scalars say what it is
        for name, value in data.items():
            if name not in view and not isinstance(value, (dict, list)):
                view[name] = value
    return _prune(view)


def _listed(item: Item, fields: Sequence[str]) -> dict[str, Any]:
    if ALL in fields:
        return _every_field(item)
    view: dict[str, Any] = {}
    for name in fields:
        value = field_value(item.data, name)
        if value is MISSING or is_empty(value):
            continue
        if _SUMMARY.search(name):
            _flatten_into(view, name, value, item.data)
        else:
            view[name] = value
    return _prune(view) or _identity(item)


def _every_field(item: Item) -> dict[str, Any]:
    """Every field as it is, empty ones included (the verbose view is the record)."""
    return {**item.data, "_source": item.source}


def _prune(view: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in view.items() if not is_empty(v)}


def to_record(item: Item, mode: str, spec: ViewSpec | None = None) -> Record:
    """The record pack sees for ``item`` in ``mode``: views tersest first (see above)."""
    spec = spec or ViewSpec()
    agent = _default_agent(item) if spec.agent is None else _listed(item, spec.agent)
    if mode == "agent":
        views: list[dict[str, Any]] = [_identity(item), agent]
    elif mode == "verbose":
        full = _every_field(item) if spec.verbose is None else _listed(item, spec.verbose)
        views = [_identity(item), agent, full]
    else:
        raise ValueError(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
    unique = [v for i, v in enumerate(views) if v not in views[:i]]
    return Record.of(*unique)
