"""Frozen value classes for the modules every ``agentout run`` loads.

An agent runs each shell command through ``agentout run``, so these modules' import is
paid per command. ``dataclasses`` would cost each one about 10 ms there: its import of
``inspect`` and the five methods it compiles with ``exec`` for each of the 17 classes
(bench/bench_startup.py makes 17 such classes both ways, side by side). A
``Frozen`` sets its fields in ``__init__`` with ``_set``, under the names ``__init__``
takes; equality, the hash, ``repr`` and ``replace`` come from those fields, in order,
leaving out any whose name starts with ``_`` (a cache).
Setting a field afterwards raises ``AttributeError``, as on a frozen dataclass. Modules
off that path use ``dataclasses``.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time: every ``agentout run`` loads this
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _F = TypeVar("_F", bound="Frozen")

__all__ = ["Frozen"]


class Frozen:
    def _set(self, **fields: object) -> None:
        self.__dict__.update(fields)

    def replace(self: _F, **changes: Any) -> _F:
        """A copy with ``changes``, made by ``__init__`` (which checks them), as
        ``dataclasses.replace`` makes one."""
        return type(self)(**{**dict(self._fields()), **changes})

    def _fields(self) -> tuple[tuple[str, object], ...]:
        return tuple((k, v) for k, v in self.__dict__.items() if not k.startswith("_"))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Frozen)
        return self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        inner = ", ".join(f"{key}={value!r}" for key, value in self._fields())
        return f"{type(self).__name__}({inner})"
