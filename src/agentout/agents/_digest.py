"""SHA-256 without OpenSSL's bindings, as ``agentout.store.writer`` names files with the
built-in BLAKE2b: the hook hashes every Bash output it reads (and the session's name),
and ``import hashlib`` loads OpenSSL's ``_hashlib`` (3-5 ms, more than hashing a
megabyte). CPython's own SHA-256 module gives the same digests; hashlib's is used where
that module is missing (a Python built without it)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported at run time: the hook is timed
if TYPE_CHECKING:
    from typing import Any

__all__ = ["sha256"]


def sha256(data: bytes = b"") -> Any:
    """A SHA-256 hash object (``update``, ``hexdigest``), as ``hashlib.sha256(data)``."""
    try:  # CPython 3.12 and later, then 3.11 and earlier
        from _sha2 import sha256 as built_in  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        try:
            from _sha256 import sha256 as built_in  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            from hashlib import sha256 as built_in
    return built_in(data)
