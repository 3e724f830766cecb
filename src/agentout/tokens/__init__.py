"""Token counting: exact o200k/cl100k counts offline, the chars4 estimate, and a plug-in protocol.

The exact encodings come from ``bpe-openai``, whose wheel carries the encoding data, so
nothing is ever downloaded (tiktoken fetches its files on first use and fails offline).
Counts equal ``len(tiktoken.get_encoding(name).encode_ordinary(text))``; the test suite
and ``bench/`` check that against tiktoken itself.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import math
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "DEFAULT_TOKENIZER",
    "MAX_TOKEN_BYTES",
    "MODEL_ALIASES",
    "MODEL_PREFIXES",
    "SHORT_NAMES",
    "Chars4",
    "ExactBPE",
    "HuggingFaceTokenizer",
    "Tokenizer",
    "UnknownTokenizerError",
    "count",
    "count_stream",
    "count_until",
    "fits",
    "get_tokenizer",
    "known_tokenizers",
    "max_chars",
    "tokenizer_name",
]

DEFAULT_TOKENIZER = "o200k_base"
ENCODINGS = ("o200k_base", "cl100k_base")
# The encodings' short names, as the docs and a config file write them.
SHORT_NAMES: dict[str, str] = {"o200k": "o200k_base", "cl100k": "cl100k_base"}

# Model names map to encodings as tiktoken's model.py maps them (gpt-oss uses o200k_harmony,
# whose ordinary text counts are o200k_base's). Names are matched case-insensitively,
# with an optional "openai/" provider prefix.
MODEL_ALIASES: dict[str, str] = {
    "gpt-5": "o200k_base",
    "gpt-4.1": "o200k_base",
    "gpt-4o": "o200k_base",
    "o1": "o200k_base",
    "o3": "o200k_base",
    "o4-mini": "o200k_base",
    "gpt-4": "cl100k_base",
    "gpt-3.5-turbo": "cl100k_base",
    "gpt-3.5": "cl100k_base",
    "gpt-35-turbo": "cl100k_base",
    "davinci-002": "cl100k_base",
    "babbage-002": "cl100k_base",
    "text-embedding-ada-002": "cl100k_base",
    "text-embedding-3-small": "cl100k_base",
    "text-embedding-3-large": "cl100k_base",
}
# A name that is no alias takes the encoding of the longest prefix it starts with,
# so "gpt-4o-2024-08-06" is o200k_base and "gpt-4-0613" is cl100k_base.
MODEL_PREFIXES: dict[str, str] = {
    "gpt-5": "o200k_base",
    "gpt-4.5-": "o200k_base",
    "gpt-4.1-": "o200k_base",
    "gpt-4o-": "o200k_base",
    "chatgpt-4o-": "o200k_base",
    "o1-": "o200k_base",
    "o3-": "o200k_base",
    "o4-mini-": "o200k_base",
    "gpt-oss-": "o200k_base",
    "ft:gpt-4o": "o200k_base",
    "gpt-4-": "cl100k_base",
    "gpt-3.5-turbo-": "cl100k_base",
    "gpt-35-turbo-": "cl100k_base",
    "ft:gpt-4": "cl100k_base",
    "ft:gpt-3.5-turbo": "cl100k_base",
    "ft:davinci-002": "cl100k_base",
    "ft:babbage-002": "cl100k_base",
}

# The longest token of o200k_base and cl100k_base is 128 bytes (tests check it against
# the shipped data). A character is at least one byte, so a text of n characters has at
# least ceil(n / 128) tokens: the O(1) bound behind count_until.
MAX_TOKEN_BYTES = 128

# Texts are counted in chunks cut where the encodings' pre-tokenizer regex is certain to
# split (see _SAFE_CUT), so chunk counts add up to the whole count exactly.
_CHUNK_CHARS = 1 << 16
_MAX_SEARCH_CHARS = 1 << 20


@runtime_checkable
class Tokenizer(Protocol):
    """Anything with a ``name`` and a ``count``; plug your own into every budget.

    Optional, used when present: ``count_until(text, limit) -> int | None`` (early stop),
    ``count_stream(pieces) -> int`` (bounded memory), and ``max_token_chars: int`` (no
    token is longer than that many characters, which lets callers skip hopeless texts).
    """

    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...


class UnknownTokenizerError(ValueError):
    """Raised for a tokenizer name that is neither an encoding, a model, nor a file."""


@dataclass(frozen=True)
class Chars4:
    """The common estimate: ceil(chars / 4); 0 for empty text or None."""

    name: str = "chars4"
    exact: bool = False
    max_token_chars: int = 4

    def count(self, text: str | None) -> int:
        return math.ceil(len(text) / 4) if text else 0

    def count_until(self, text: str, limit: int) -> int | None:
        n = self.count(text)
        return n if n <= limit else None

    def count_stream(self, pieces: Iterable[str]) -> int:
        # the ceiling of the whole length, not a sum of ceilings
        return math.ceil(sum(len(piece) for piece in pieces) / 4)


class ExactBPE:
    """An OpenAI encoding (o200k_base, cl100k_base), counted exactly and offline."""

    exact = True
    max_token_chars = MAX_TOKEN_BYTES

    def __init__(self, encoding: str) -> None:
        self.name = encoding
        self._bpe: Any = _native().tokenizer_for_encoding(encoding)

    def __repr__(self) -> str:
        return f"ExactBPE({self.name!r})"

    def count(self, text: str) -> int:
        if len(text) <= _CHUNK_CHARS:
            return self._count(text)
        return sum(self._count(chunk) for chunk in _chunks(text))

    def count_until(self, text: str, limit: int) -> int | None:
        """The exact count if it is at most ``limit``, else None; O(limit), not O(text)."""
        if limit < 0 or len(text) > limit * MAX_TOKEN_BYTES:
            return None
        total = 0
        for chunk in _chunks(text):
            room = min(limit - total, 4 * len(chunk))  # no more tokens than UTF-8 bytes
            try:
                found: int | None = self._bpe.count_till_limit(chunk, room)
            except UnicodeEncodeError:
                found = self._count(chunk)
            if found is None or total + found > limit:
                return None
            total += found
        return total

    def count_stream(self, pieces: Iterable[str]) -> int:
        """Count a text that arrives in pieces, exactly, holding about a chunk at a time.

        A run of more than a MiB with no safe cut at all (one giant word) is cut anyway,
        with one warning that the count may be a few tokens off at each such cut.
        """
        return self.count_stream_cuts(pieces)[0]

    def count_stream_cuts(self, pieces: Iterable[str]) -> tuple[int, int]:
        """``count_stream``, and how many such forced cuts it made (0: the count is exact)."""
        total = forced = 0
        parts: list[str] = []
        size = 0
        next_try = _CHUNK_CHARS  # grows when no cut is found, so joins stay linear
        for piece in pieces:
            parts.append(piece)
            size += len(piece)
            if size < next_try:
                continue
            text = "".join(parts)
            cut = _last_cut(text)
            if cut == 0 and size > _MAX_SEARCH_CHARS:
                _warn_once(
                    "forced-cut",
                    "a run of over 1 MiB without a token boundary was cut; "
                    "the count may be off by a token or so at each such cut (approx)",
                )
                forced += 1
                cut = size - 1 if "\ud800" <= text[-1] <= "\udbff" else size
            if cut == 0:
                parts, next_try = [text], 2 * size
                continue
            total += self.count(text[:cut])
            rest = text[cut:]
            parts, size, next_try = [rest], len(rest), len(rest) + _CHUNK_CHARS
        return total + self.count("".join(parts)), forced

    def encode(self, text: str) -> list[int]:
        return list(self._bpe.encode(_replace_surrogates(text)))

    def _count(self, text: str) -> int:
        try:
            return int(self._bpe.count(text))
        except UnicodeEncodeError:
            return int(self._bpe.count(_replace_surrogates(text)))


def _native() -> Any:
    """bpe-openai's compiled core (``bpe_openai._bindings``), loaded on first use.

    It is loaded without running the package's ``__init__``, which parses every encoding
    file it ships at import (about 0.3 s, and a DeprecationWarning that ``-W error``
    turns into a failure) only to build tables this module never uses.
    """
    name = "bpe_openai._bindings"
    if name in sys.modules:
        return sys.modules[name]
    package = importlib.util.find_spec("bpe_openai")
    folders = package.submodule_search_locations if package is not None else None
    for folder in folders or ():
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = Path(folder, f"_bindings{suffix}")
            if path.is_file():
                loader = importlib.machinery.ExtensionFileLoader(name, str(path))
                spec = importlib.util.spec_from_file_location(name, path, loader=loader)
                assert spec is not None
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
                sys.modules[name] = module
                return module
    raise ImportError("bpe-openai is not installed, or has no native module")


def _replace_surrogates(text: str) -> str:
    """What tiktoken counts for a str with surrogates: pairs joined, lone ones as U+FFFD."""
    return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class HuggingFaceTokenizer:
    """A Hugging Face ``tokenizer.json`` (needs the ``hf`` extra: ``pip install agentout[hf]``).

    Counts the text's own tokens: no special tokens added, and any truncation or padding
    configured in the file is switched off, so a long text is counted in full.
    """

    exact = True

    def __init__(self, path: str | Path) -> None:
        try:
            from tokenizers import Tokenizer as _HFTokenizer
        except ImportError as exc:  # pragma: no cover - exercised only without the extra
            from agentout.errors import install_hint

            raise UnknownTokenizerError(
                "a tokenizer.json needs the 'tokenizers' package: " + install_hint("hf")
            ) from exc
        self.path = Path(path)
        self.name = f"hf:{self.path}"
        try:
            self._tok: Any = _HFTokenizer.from_file(str(self.path))
        except Exception as exc:  # tokenizers raises plain Exception for a bad file
            raise UnknownTokenizerError(f"cannot load tokenizer {self.path}: {exc}") from exc
        self._tok.no_truncation()
        self._tok.no_padding()

    def __repr__(self) -> str:
        return f"HuggingFaceTokenizer({str(self.path)!r})"

    def count(self, text: str) -> int:
        return len(self._tok.encode(text, add_special_tokens=False).ids)


_cache: dict[str, Tokenizer] = {}
_warned: set[str] = set()


def known_tokenizers() -> list[str]:
    """Every name get_tokenizer accepts, besides model prefixes and ``hf:PATH``."""
    return [*ENCODINGS, "chars4", *SHORT_NAMES, *sorted(MODEL_ALIASES)]


def _resolve_alias(name: str) -> str | None:
    name = name.lower().removeprefix("openai/")
    if name in ENCODINGS:
        return name
    if name in SHORT_NAMES:
        return SHORT_NAMES[name]
    if name in MODEL_ALIASES:
        return MODEL_ALIASES[name]
    prefixes = [p for p in MODEL_PREFIXES if name.startswith(p)]
    return MODEL_PREFIXES[max(prefixes, key=len)] if prefixes else None


def _warn_once(key: str, message: str) -> None:
    if key not in _warned:
        _warned.add(key)
        print(f"agentout: warning: {message}", file=sys.stderr)


def _exact(encoding: str) -> Tokenizer:
    if encoding not in _cache:
        try:
            _cache[encoding] = ExactBPE(encoding)
        except Exception as exc:  # any failure to load means: estimate, and say so
            _warn_once(
                "fallback",
                f"exact tokenizer {encoding} unavailable ({type(exc).__name__}: {exc}); "
                "counting with chars4 = ceil(chars/4)",
            )
            _cache[encoding] = Chars4()
    return _cache[encoding]


def _unknown(name: str) -> UnknownTokenizerError:
    return UnknownTokenizerError(
        f"unknown tokenizer {name!r}; known: {', '.join(known_tokenizers())}, "
        "a model name starting with one of those, or hf:PATH to a tokenizer.json"
    )


def tokenizer_name(name: str) -> str:
    """The tokenizer ``name`` stands for (``o200k`` -> ``o200k_base``, ``gpt-4o`` ->
    ``o200k_base``, ``chars4``, ``hf:PATH``), checked without loading anything:
    ``UnknownTokenizerError`` for a name ``get_tokenizer`` would refuse."""
    key = name.strip()
    if key == "chars4":
        return key
    if key.startswith("hf:") or key.endswith("tokenizer.json"):
        path = key.removeprefix("hf:")
        if not Path(path).is_file():
            raise UnknownTokenizerError(f"tokenizer file not found: {path}")
        return key
    encoding = _resolve_alias(key)
    if encoding is None:
        raise _unknown(name)
    return encoding


def get_tokenizer(name: str | Tokenizer | None = None) -> Tokenizer:
    """Resolve a name (encoding, its short name ``o200k``, model, ``chars4``, ``hf:PATH``)
    to a tokenizer.

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
        encoding = _resolve_alias(key)
        if encoding is None:
            raise _unknown(name)
        tokenizer = _exact(encoding)
    _cache[key] = tokenizer
    return tokenizer


def count(text: str, tokenizer: str | Tokenizer | None = None) -> int:
    """Tokens in ``text`` (exact o200k_base unless another tokenizer is named)."""
    return get_tokenizer(tokenizer).count(text)


def max_chars(limit: int, tokenizer: str | Tokenizer | None = None) -> int | None:
    """The most characters a text of at most ``limit`` tokens can have, if that is known.

    A longer text cannot fit, whatever it says: ``limit * 128`` for the exact encodings,
    ``limit * 4`` for chars4, None for a tokenizer that states no ``max_token_chars``.
    """
    per_token = getattr(get_tokenizer(tokenizer), "max_token_chars", None)
    return None if per_token is None else max(limit, 0) * int(per_token)


def count_until(text: str, limit: int, tokenizer: str | Tokenizer | None = None) -> int | None:
    """The exact count of ``text`` if it is at most ``limit`` tokens, else None.

    For the built-in encodings this costs O(limit), whatever the length of ``text``.
    """
    tok = get_tokenizer(tokenizer)
    method = getattr(tok, "count_until", None)
    if method is not None:
        result: int | None = method(text, limit)
        return result
    bound = max_chars(limit, tok)
    if limit < 0 or (bound is not None and len(text) > bound):
        return None
    n = tok.count(text)
    return n if n <= limit else None


def count_stream_cuts(
    chunks: Iterable[str], tokenizer: str | Tokenizer | None = None
) -> tuple[int, int]:
    """``count_stream``, and how many runs of over 1 MiB without a token boundary it had
    to cut (each may put the count off by a token or so): 0 when the count is exact."""
    tok = get_tokenizer(tokenizer)
    method = getattr(tok, "count_stream_cuts", None)
    if method is not None:
        found: tuple[int, int] = method(chunks)
        return found
    return count_stream(chunks, tok), 0


def count_stream(chunks: Iterable[str], tokenizer: str | Tokenizer | None = None) -> int:
    """Count a text that arrives in pieces (a large file), exactly.

    The built-in encodings and chars4 hold about 64 K characters at a time (see
    ``ExactBPE.count_stream`` for the one exception). Another tokenizer without a
    ``count_stream`` of its own gets the joined text, as no cut is known to be safe for it.
    """
    tok = get_tokenizer(tokenizer)
    method = getattr(tok, "count_stream", None)
    if method is not None:
        result: int = method(chunks)
        return result
    return tok.count("".join(chunks))


# Positions j where both encodings' pre-tokenizer regexes must start a new piece, so that
# count(text) == count(text[:j]) + count(text[j:]): no piece can span j, and text[:j]
# splits into the same pieces as the whole text does up to j. They are: after a newline,
# before a character that is neither whitespace nor '/'; a space after a non-space; ASCII
# punctuation other than an apostrophe after an ASCII letter or digit. Python's \s is a
# superset of Unicode White_Space, so its \S errs on the safe side; the last rule stays
# ASCII so that no difference between Python's and the encoder's Unicode versions can
# matter. Property tests check the additivity against tiktoken for both encodings.
_SAFE_CUT = re.compile(r"(?<=\n)(?=[^\s/])|(?<=\S)(?= )|(?<=[0-9A-Za-z])(?=[!-&(-/:-@\[-`{-~])")


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


def _last_cut(text: str) -> int:
    """A safe cut near the end of ``text`` (the first one in the last window), or 0."""
    for window in (4096, _CHUNK_CHARS, len(text)):
        found = _SAFE_CUT.search(text, max(1, len(text) - window))
        if found is not None:
            return found.start()
    return 0


def fits(text: str, max_tokens: int, tokenizer: str | Tokenizer | None = None) -> bool:
    """Whether ``text`` is within ``max_tokens``, deciding in O(max_tokens)."""
    return count_until(text, max_tokens, tokenizer) is not None
