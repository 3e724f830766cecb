"""The reference tokenizer, loaded offline: tiktoken fed with the data bpe-openai ships.

tiktoken downloads its encoding files on first use and caches them under the SHA-1 of the
download URL. Writing the decompressed ``bpe_openai/data/*.tiktoken.gz`` there, and pointing
``TIKTOKEN_CACHE_DIR`` at that directory, lets ``tiktoken.get_encoding`` load with no
network; tiktoken still checks each file's published SHA-256, so a load also proves the
shipped data is the genuine OpenAI encoding. ``bench/`` imports this module too.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import os
from pathlib import Path
from typing import Any

# The URLs tiktoken_ext/openai_public.py downloads from; tiktoken's cache key is their SHA-1.
BLOB_URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}


def shipped_data(name: str) -> bytes:
    """The decompressed ``NAME.tiktoken`` file inside the bpe-openai wheel.

    Found without importing ``bpe_openai``, whose ``__init__`` parses all its data.
    """
    package = importlib.util.find_spec("bpe_openai")
    assert package is not None, "bpe-openai is not installed"
    assert package.submodule_search_locations is not None
    folder = Path(next(iter(package.submodule_search_locations)))
    return gzip.decompress((folder / "data" / f"{name}.tiktoken.gz").read_bytes())


def fill_cache(
    cache_dir: str | os.PathLike[str], names: tuple[str, ...] = tuple(BLOB_URLS)
) -> Path:
    """Write the shipped data where tiktoken's cache looks for it; return the directory."""
    cache = Path(cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = cache / hashlib.sha1(BLOB_URLS[name].encode()).hexdigest()
        if not path.exists():
            path.write_bytes(shipped_data(name))
    return cache


def reference_encoding(name: str, cache_dir: str | os.PathLike[str]) -> Any:
    """``tiktoken.get_encoding(name)``, loaded offline from the data bpe-openai ships.

    Sets ``TIKTOKEN_CACHE_DIR`` for this process. tiktoken verifies the SHA-256 it expects
    and would try to download (and, offline, fail) if the shipped data did not match.
    """
    import tiktoken

    if name not in BLOB_URLS:
        raise ValueError(f"no reference for {name!r}; known: {', '.join(BLOB_URLS)}")
    import tiktoken.load

    os.environ["TIKTOKEN_CACHE_DIR"] = str(fill_cache(cache_dir, (name,)))
    download = tiktoken.load.read_file
    tiktoken.load.read_file = _refuse_download  # a hash mismatch must fail, not fetch
    try:
        return tiktoken.get_encoding(name)
    finally:
        tiktoken.load.read_file = download


def _refuse_download(blobpath: str) -> bytes:
    raise RuntimeError(
        f"reference tiktoken tried to download {blobpath}: the data bpe-openai ships "
        "does not match the SHA-256 tiktoken expects"
    )
