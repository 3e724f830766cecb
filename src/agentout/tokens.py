"""Token counting: exact o200k/cl100k counts offline, the chars4 estimate, and a plug-in protocol.

The exact encodings come from ``bpe-openai``, whose wheel carries the encoding data, so
nothing is ever downloaded (tiktoken fetches its files on first use and fails offline).
Counts equal ``len(tiktoken.get_encoding(name).encode_ordinary(text))``; the test suite
and ``bench/`` check that against tiktoken itself.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "DEFAULT_TOKENIZER",
    "Chars4",
    "ExactBPE",
    "HuggingFaceTokenizer",
    "Tokenizer",
    "UnknownTokenizerError",
    "count",
    "count_stream",
    "count_until",
    "get_tokenizer",
    "known_tokenizers",
]

DEFAULT_TOKENIZER = "o200k_base"
ENCODINGS = ("o200k_base", "cl100k_base")

# Model names map to encodings as tiktoken maps them; a name matches an exact key or,
# failing that, the longest prefix key ending in "-" (so "gpt-4o-2024-08-06" is o200k).
MODEL_ALIASES: dict[str, str] = {
    "gpt-5": "o200k_base",
    "gpt-5-": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4o": "o200k_base",
    "gpt-4o-": "o200k_base",
    "o1": "o200k_base",
    "o1-": "o200k_base",
    "o3": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-oss-": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
}

# The longest token of o200k_base and cl100k_base is 128 bytes (tests check it against
# the shipped data). A character is at least one byte, so a text of n characters has at
# least ceil(n / 128) tokens: the O(1) lower bound behind count_until.
MAX_TOKEN_BYTES = 128

# Texts are counted in chunks cut where the encodings' pre-tokenizer regex is certain to
# split (see _SAFE_CUT), so chunk counts add up to the whole count exactly.
_CHUNK_CHARS = 1 << 16
_MAX_SEARCH_CHARS = 1 << 20


@runtime_checkable
class Tokenizer(Protocol):
    """Anything with a ``name`` and a ``count``; plug your own into every budget."""

    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...


class UnknownTokenizerError(ValueError):
    """Raised for a tokenizer name that is neither an encoding, a model, nor a file."""


@dataclass(frozen=True)
class Chars4:
    """The seeds' estimate: ceil(chars / 4); 0 for empty text."""

    name: str = "chars4"
    exact: bool = False

    def count(self, text: str | None) -> int:
        if not text:
            return 0
        return math.ceil(len(text) / 4)

    def count_until(self, text: str, limit: int) -> int | None:
        n = self.count(text)
        return n if n <= limit else None


class ExactBPE:
    """An OpenAI encoding (o200k_base, cl100k_base), counted exactly and offline."""

    exact = True

    def __init__(self, encoding: str) -> None:
        from bpe_openai import _bindings  # deferred: ~70 ms and 70 MB of tables

        self.name = encoding
        self._bpe: Any = _bindings.tokenizer_for_encoding(encoding)

    def __repr__(self) -> str:
        return f"ExactBPE({self.name!r})"

    def count(self, text: str) -> int:
        if len(text) <= _CHUNK_CHARS:
            return int(self._bpe.count(text))
        return sum(int(self._bpe.count(chunk)) for chunk in _chunks(text))

    def count_until(self, text: str, limit: int) -> int | None:
        """The exact count if it is at most ``limit``, else None; O(limit), not O(text)."""
        if limit < 0 or len(text) > limit * MAX_TOKEN_BYTES:
            return None
        total = 0
        for chunk in _chunks(text):
            total += int(self._bpe.count(chunk))
            if total > limit:
                return None
        return total

    def encode(self, text: str) -> list[int]:
        return list(self._bpe.encode(text))


class HuggingFaceTokenizer:
    """A Hugging Face ``tokenizer.json`` (needs the ``hf`` extra: ``pip install agentout[hf]``)."""

    exact = True

    def __init__(self, path: str | Path) -> None:
        try:
            from tokenizers import Tokenizer as _HFTokenizer
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            raise UnknownTokenizerError(
                "a tokenizer.json needs the 'tokenizers' package: pip install 'agentout[hf]'"
            ) from exc
        self.path = Path(path)
        self.name = f"hf:{self.path.name}"
        self._tok: Any = _HFTokenizer.from_file(str(self.path))

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)


_cache: dict[str, Tokenizer] = {}
_warned: set[str] = set()


def known_tokenizers() -> list[str]:
    """Every name get_tokenizer accepts, besides ``hf:PATH`` and a tokenizer.json path."""
    models = sorted(k for k in MODEL_ALIASES if not k.endswith("-"))
    return [*ENCODINGS, "chars4", *models]


def _resolve_alias(name: str) -> str | None:
    if name in ENCODINGS:
        return name
    if name in MODEL_ALIASES:
        return MODEL_ALIASES[name]
    prefixes = [k for k in MODEL_ALIASES if k.endswith("-") and name.startswith(k)]
    return MODEL_ALIASES[max(prefixes, key=len)] if prefixes else None


def _warn_once(key: str, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        print(f"agentout: warning: {message}", file=sys.stderr)


def get_tokenizer(name: str | Tokenizer | None = None) -> Tokenizer:
    """Resolve a name (encoding, model alias, ``chars4``, ``hf:PATH``) to a tokenizer.

    An exact encoding that cannot load falls back to chars4 with one warning on stderr;
    the returned tokenizer's ``name`` always says which one really counts.
    """
    if name is None:
        name = DEFAULT_TOKENIZER
    if not isinstance(name, str):
        return name
    key = name.strip()
    if key in _cache:
        return _cache[key]
    tokenizer: Tokenizer
    if key == "chars4":
        tokenizer = Chars4()
    elif key.startswith("hf:") or key.endswith("tokenizer.json"):
        path = key.removeprefix("hf:")
        if not Path(path).is_file():
            raise UnknownTokenizerError(f"tokenizer file not found: {path}")
        tokenizer = HuggingFaceTokenizer(path)
    else:
        encoding = _resolve_alias(key.lower())
        if encoding is None:
            raise UnknownTokenizerError(
                f"unknown tokenizer {name!r}; known: {', '.join(known_tokenizers())}, "
                "or hf:PATH/tokenizer.json"
            )
        try:
            tokenizer = ExactBPE(encoding)
        except Exception as exc:  # any failure to load means: estimate, and say so
            _warn_once(
                encoding,
                f"exact tokenizer {encoding} unavailable ({type(exc).__name__}: {exc}); "
                "counting with chars4 = ceil(chars/4)",
            )
            tokenizer = Chars4()
    _cache[key] = tokenizer
    return tokenizer


def count(text: str, tokenizer: str | Tokenizer | None = None) -> int:
    """Tokens in ``text`` (exact o200k_base unless another tokenizer is named)."""
    return get_tokenizer(tokenizer).count(text)


def count_until(text: str, limit: int, tokenizer: str | Tokenizer | None = None) -> int | None:
    """The exact count of ``text`` if it is at most ``limit`` tokens, else None.

    For the built-in encodings this costs O(limit), whatever the length of ``text``.
    """
    tok = get_tokenizer(tokenizer)
    method = getattr(tok, "count_until", None)
    if method is not None:
        result: int | None = method(text, limit)
        return result
    n = tok.count(text)
    return n if n <= limit else None


def count_stream(chunks: Iterable[str], tokenizer: str | Tokenizer | None = None) -> int:
    """Count a text that arrives in pieces (a large file) in bounded memory, exactly.

    Pieces are counted at safe cuts. A run of more than a MiB with no safe cut at all
    (one giant word) is cut anyway, with one warning that the count may be off by a
    token at each such cut.
    """
    tok = get_tokenizer(tokenizer)
    total = 0
    carry = ""
    for piece in chunks:
        carry += piece
        while len(carry) >= _CHUNK_CHARS:
            found = _SAFE_CUT.search(carry, _CHUNK_CHARS // 2)
            if found is not None:
                cut = found.start()
            elif len(carry) > _MAX_SEARCH_CHARS:
                _warn_once("forced-cut", "a run of over 1 MiB without a token boundary was cut")
                cut = _MAX_SEARCH_CHARS
            else:
                break
            total += tok.count(carry[:cut])
            carry = carry[cut:]
    return total + (tok.count(carry) if carry else 0)


# Positions j where both encodings' pre-tokenizer regexes must start a new piece, so that
# count(text) == count(text[:j]) + count(text[j:]): no piece can span j, and text[:j]
# splits into the same pieces as the whole text does up to j. They are: after a newline,
# before a character that is neither whitespace nor '/'; a space after a non-space; ASCII
# punctuation other than an apostrophe after a letter or digit. Property tests check the
# additivity against whole-text counts for both encodings.
_SAFE_CUT = re.compile(r"(?<=\n)(?=[^\s/])|(?<=\S)(?= )|(?<=[^\W_])(?=[!-&(-/:-@\[-`{-~])")


def _chunks(text: str) -> Iterator[str]:
    """Split text into pieces of about _CHUNK_CHARS at safe cuts."""
    start = 0
    n = len(text)
    while n - start > _CHUNK_CHARS:
        found = _SAFE_CUT.search(text, start + _CHUNK_CHARS, min(n, start + _MAX_SEARCH_CHARS))
        if found is None:
            break
        yield text[start : found.start()]
        start = found.start()
    yield text[start:]
