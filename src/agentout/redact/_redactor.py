"""The redactor: one object that hides secrets in streams, bytes, text and JSON-like data."""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any

from agentout.redact._found import Found, marker
from agentout.redact._names import (
    extra_names as configured_names,
)
from agentout.redact._names import (
    is_secret_name,
    kind_of_name,
    redaction_enabled,
    secret_values,
)
from agentout.redact._quick import nothing_to_find
from agentout.redact._stream import RedactedReader, StreamRedactor

if TYPE_CHECKING:
    from typing import TypeVar

    from agentout.redact._rules import RuleSet
    from agentout.redact._scan import Scanner

    T = TypeVar("T")

__all__ = ["Redactor", "default_redactor", "redact_bytes", "redact_text", "redact_value"]

_READ = 1 << 16
# Scanners built in this process, by the secret values and names they were built for (a
# process that redacts for many environments, the warm hook server's, builds each once).
_BUILT: dict[tuple[tuple[tuple[str, str], ...], tuple[str, ...]], tuple[RuleSet, Scanner]] = {}


class Redactor:
    """Hides secrets before an agent sees them.

    ``values`` maps each secret value to search for literally to the variable holding it
    (``Redactor.from_environ`` takes them from the environment); ``extra_names`` are more
    variable names (``*`` allowed) whose assigned values are secrets. A redactor that is
    not ``enabled`` returns everything as it was and finds nothing. The scanner is built
    on first use (a stream's first chunk of output), so an unused redactor costs nothing.
    """

    def __init__(
        self,
        values: Mapping[str, str] | None = None,
        *,
        extra_names: Iterable[str] = (),
        enabled: bool = True,
    ) -> None:
        self.enabled = enabled
        self._values = dict(values or {})
        self._extra = tuple(extra_names)
        self._scanner: Scanner | None = None

    @classmethod
    def from_environ(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        extra_names: Iterable[str] = (),
        enabled: bool | None = None,
    ) -> Redactor:
        """The redactor for this environment: the values of its secret variables, the
        names in ``AGENTOUT_SECRET_NAMES`` and ``extra_names`` (from a config file), on
        unless ``AGENTOUT_REDACT`` says off or ``enabled`` is False.

        Raises AgentoutError for a bad ``AGENTOUT_REDACT`` or ``AGENTOUT_SECRET_NAMES``.
        """
        env = os.environ if environ is None else environ
        names = (*configured_names(env), *extra_names)
        on = redaction_enabled(env) if enabled is None else enabled
        values = secret_values(env, names) if on else {}
        return cls(values, extra_names=names, enabled=on)

    @property
    def scanner(self) -> Scanner | None:
        """The compiled scanner, or None when redaction is off."""
        if not self.enabled:
            return None
        if self._scanner is None:
            from agentout.redact._rules import load_rules
            from agentout.redact._scan import Scanner

            rules = load_rules()
            key = (tuple(sorted(self._values.items())), self._extra)
            built = _BUILT.get(key)
            if built is None or built[0] is not rules:
                built = _BUILT[key] = (rules, Scanner(rules, self._values, self._extra))
            self._scanner = built[1]
        return self._scanner

    def stream(self) -> StreamRedactor:
        """A fresh redactor for one stream of bytes (a command's output); the scanner is
        built when the first bytes arrive."""
        if not self.enabled:
            return StreamRedactor(None)
        if self._scanner is not None:
            return StreamRedactor(self._scanner)
        return StreamRedactor(lambda: self.scanner)

    def reader(self, source: IO[bytes]) -> IO[bytes]:
        """``source`` (a binary file) as it reads redacted, a line at a time or in any
        pieces; ``source`` itself when redaction is off. Closing it leaves ``source`` open."""
        if not self.enabled:
            return source
        return io.BufferedReader(RedactedReader(source, self.stream()), _READ)

    def redact_bytes(self, data: bytes) -> tuple[bytes, Found]:
        if self.enabled and nothing_to_find(data, self._values):
            return bytes(data), Found()  # a few plain words: no scanner built (_quick)
        stream = self.stream()
        out = stream.feed(data)
        tail = stream.finish()
        return (out + tail if tail else out), stream.found

    def redact_text(self, text: str) -> tuple[str, Found]:
        """``text`` with its secrets replaced; the very same string when there are none."""
        if not self.enabled or not text:
            return text, Found()
        data = text.encode("utf-8", "surrogatepass")
        out, found = self.redact_bytes(data)
        if not found:
            return text, found
        try:
            return out.decode("utf-8", "surrogatepass"), found
        except UnicodeDecodeError:  # a window of a very long line cut a character
            return out.decode("utf-8", "replace"), found

    def redact_cut_text(self, text: str) -> tuple[str, Found]:
        """``redact_text``, and also the pieces of a known value a tool printed cut (a
        test framework's ``'ghp_abcdefgh...xyz0123456789'``): a run of characters that
        begins or ends with 8 or more of a secret value's own first or last characters is
        hidden as that value."""
        text, found = self.redact_text(text)
        if not self.enabled or not self._values:
            return text, found
        import re

        hidden: dict[str, int] = {}
        for value, name in self._values.items():
            if len(value) < 16:
                continue  # a piece of a short value could be anything
            head, tail = re.escape(value[:8]), re.escape(value[-8:])
            piece = re.compile(rf"[\w.+/=-]*(?:{head}|{tail})[\w.+/=-]*")
            text, n = piece.subn(f"[secret: ${name}]", text)
            if n:
                hidden[f"${name}"] = n
        return text, found + Found.of(hidden)

    def redact_value(self, value: T) -> tuple[T, Found]:
        """A JSON-like value (dicts, lists, tuples, strings, anything else kept) with the
        secrets in its strings replaced, and a string under a key that names a secret
        (``"password"``, ``"access_token"``, ``"GH_TOKEN"``) replaced whole."""
        if not self.enabled:
            return value, Found()
        counts: dict[str, int] = {}
        result = self._walk(value, None, counts)
        return result, Found.of(counts)

    def holds_none(self, value: Any) -> bool:
        """Whether ``redact_value(value)`` would change nothing, found with one scan of all
        its strings joined by newlines (every rule reads within a line, and a private key
        block within its string's lines) and a look at each key: much cheaper than a walk
        that scans string by string, for the many records that hold no secret."""
        if not self.enabled:
            return True
        strings: list[str] = []
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                strings.append(item)
            elif isinstance(item, Mapping):
                for k, v in item.items():
                    if isinstance(k, str):
                        if self._key_kind(k) is not None:
                            return False
                        strings.append(k)
                    stack.append(v)
            elif isinstance(item, (list, tuple)):
                stack.extend(item)
        if not strings:
            return True
        _, found = self.redact_text("\n".join(strings))
        return not found

    def _walk(self, value: Any, key: str | None, counts: dict[str, int]) -> Any:
        """``value`` rebuilt with its strings redacted, iteratively: data nested deeper
        than Python's recursion limit is redacted too (the formats refuse it later, with
        their own message)."""
        if not isinstance(value, (Mapping, list, tuple)):
            return self._leaf(value, key, counts)
        stack = [_Frame(value, key)]
        while True:
            frame = stack[-1]
            for child_key, child_context, child in frame.pending:
                if isinstance(child_key, str):  # a mapping's key: redacted like a value
                    child_key = self._leaf(child_key, None, counts)
                if isinstance(child, (Mapping, list, tuple)):
                    frame.waiting = child_key
                    stack.append(_Frame(child, child_context))
                    break
                frame.out.append((child_key, self._leaf(child, child_context, counts)))
            else:
                stack.pop()
                built = frame.build()
                if not stack:
                    return built
                stack[-1].out.append((stack[-1].waiting, built))

    def _leaf(self, value: Any, key: str | None, counts: dict[str, int]) -> Any:
        if not isinstance(value, str):
            return value
        kind = self._key_kind(key) if key is not None else None
        if kind is not None and _plausible_value(value):
            counts[kind] = counts.get(kind, 0) + 1
            return marker(kind).decode("ascii")
        text, found = self.redact_text(value)
        for name, n in found.kinds:
            counts[name] = counts.get(name, 0) + n
        return text

    def _key_kind(self, key: str) -> str | None:
        from agentout.redact._patterns import secret_key

        if is_secret_name(key, self._extra) or secret_key(key):
            return kind_of_name(key)
        return None


class _Frame:
    """One container on ``Redactor._walk``'s stack: its children still to walk (key as
    written, key the child's strings are judged by, child) and what is built so far."""

    def __init__(self, value: Any, key: str | None) -> None:
        self.value = value
        self.out: list[tuple[Any, Any]] = []
        self.waiting: Any = None
        if isinstance(value, Mapping):
            self.pending: Iterator[tuple[Any, str | None, Any]] = (
                (k, k if isinstance(k, str) else None, v) for k, v in value.items()
            )
        else:
            self.pending = ((None, key, item) for item in value)

    def build(self) -> Any:
        if isinstance(self.value, Mapping):
            return dict(self.out)
        items = [item for _, item in self.out]
        return tuple(items) if isinstance(self.value, tuple) else items


def _plausible_value(value: str) -> bool:
    from agentout.redact._patterns import plausible_value

    return plausible_value(value)


_DEFAULT: tuple[tuple[tuple[str, str], ...], Redactor] | None = None
_RELEVANT = ("AGENTOUT_REDACT", "AGENTOUT_SECRET_NAMES")


def default_redactor() -> Redactor:
    """The redactor for the current environment, rebuilt only when the environment's
    secret variables (or agentout's redaction settings) change."""
    global _DEFAULT
    extra = configured_names()
    key = tuple(
        sorted(
            (name, value)
            for name, value in os.environ.items()
            if name in _RELEVANT or is_secret_name(name, extra)
        )
    )
    if _DEFAULT is None or _DEFAULT[0] != key:
        _DEFAULT = (key, Redactor.from_environ())
    return _DEFAULT[1]


def redact_bytes(data: bytes) -> tuple[bytes, Found]:
    """``data`` with its secrets replaced, by the redactor for the current environment."""
    return default_redactor().redact_bytes(data)


def redact_text(text: str) -> tuple[str, Found]:
    """``text`` with its secrets replaced, by the redactor for the current environment."""
    return default_redactor().redact_text(text)


def redact_value(value: T) -> tuple[T, Found]:
    """A JSON-like value with its secrets replaced (see ``Redactor.redact_value``)."""
    return default_redactor().redact_value(value)
