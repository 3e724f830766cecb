"""``AGENTOUT_STORE`` and ``--store``: a local directory, or the URL of an object store.

A value without a scheme is a local path (``~`` expanded); ``file://PATH`` is the same
local path. ``s3://``, ``gs://`` (``gcs://``) and ``az://`` (``abfs://``, ``abfss://``)
name a bucket or container and a prefix under it. Anything else is refused with one line
that lists what is understood. ``AGENTOUT_SPILL_DIR``, the older name, still names the
local store; when both are set, ``AGENTOUT_STORE`` says where output is stored and
``AGENTOUT_SPILL_DIR`` where its local copy goes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

from agentout.errors import AgentoutError
from agentout.frozen import Frozen

__all__ = ["ENV_STORE", "EXTRAS", "RemoteAddress", "StoreAddressError", "parse_address"]

ENV_STORE = "AGENTOUT_STORE"
# protocol -> (the extra that installs its fsspec package, the package)
EXTRAS = {
    "s3": ("s3", "s3fs"),
    "gs": ("gcs", "gcsfs"),
    "gcs": ("gcs", "gcsfs"),
    "az": ("azure", "adlfs"),
    "abfs": ("azure", "adlfs"),
    "abfss": ("azure", "adlfs"),
}
_SCHEME = re.compile(r"\A([a-zA-Z][a-zA-Z0-9+.-]*)://")
_PREFIX_PART = re.compile(r"\A[A-Za-z0-9._=-]+\Z")


class StoreAddressError(AgentoutError):
    """``AGENTOUT_STORE`` or ``--store`` names no store agentout can use."""


class RemoteAddress(Frozen):
    """An object store location: ``protocol://bucket/prefix`` (the prefix may be empty)."""

    protocol: str
    bucket: str
    prefix: str

    def __init__(self, protocol: str, bucket: str, prefix: str) -> None:
        self._set(protocol=protocol, bucket=bucket, prefix=prefix)

    @property
    def url(self) -> str:
        tail = f"/{self.prefix}" if self.prefix else ""
        return f"{self.protocol}://{self.bucket}{tail}"

    @property
    def root(self) -> str:
        """The path fsspec takes for the prefix: ``bucket/prefix`` (no scheme)."""
        return f"{self.bucket}/{self.prefix}" if self.prefix else self.bucket

    def child(self, part: str) -> RemoteAddress:
        prefix = f"{self.prefix}/{part}" if self.prefix else part
        return RemoteAddress(self.protocol, self.bucket, prefix)

    def __str__(self) -> str:
        return self.url


def parse_address(value: str, *, where: str = ENV_STORE) -> Path | RemoteAddress:
    """A local path or a ``RemoteAddress``; ``StoreAddressError`` naming ``where``."""
    text = value.strip()
    if not text:
        raise StoreAddressError(f"{where}: empty; give a path or s3://, gs://, az:// URL")
    match = _SCHEME.match(text)
    if match is None:
        return Path(text).expanduser()
    scheme = match.group(1).lower()
    parts = urlsplit(text)
    if scheme == "file":
        if parts.netloc not in ("", "localhost"):
            raise StoreAddressError(f"{where}={value!r}: file:// URLs name this machine only")
        return Path(unquote(parts.path))
    if scheme not in EXTRAS:
        known = "a path, file://, s3://, gs://, az://"
        raise StoreAddressError(f"{where}={value!r}: unknown store {scheme}://; use {known}")
    if parts.query or parts.fragment or not parts.netloc:
        raise StoreAddressError(f"{where}={value!r}: expected {scheme}://bucket/prefix")
    pieces = [p for p in parts.path.split("/") if p]
    if any(not _PREFIX_PART.match(p) or p in (".", "..") for p in pieces):
        raise StoreAddressError(
            f"{where}={value!r}: the prefix may hold only letters, digits and . _ = - "
            "between slashes"
        )
    return RemoteAddress(scheme, parts.netloc, "/".join(pieces))


def configured() -> str | None:
    """The value of ``AGENTOUT_STORE``, if set and not blank."""
    value = os.environ.get(ENV_STORE, "").strip()
    return value or None
