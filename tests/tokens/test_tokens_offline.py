"""THE offline test: exact counts with no network, an empty tiktoken cache and an empty HOME.

The child process cannot open a socket at all (a sitecustomize on PYTHONPATH makes every
way to one raise), its proxies point at a dead port, and its caches are empty. It must
still count both encodings exactly: the counts are compared with tiktoken's, computed
here in the parent from the reference loaded offline.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

SAMPLES = [
    "hello world",
    "The quick brown fox jumps over the lazy dog.\n" * 30,
    '{"id": 1, "tags": ["a", "b"], "text": "東京は日本の首都です"}',
    "مرحبا بالعالم 👨‍👩‍👧 <|endoftext|>\r\n\tdef f(x):\n        return x ** 2\n",
    "2024-06-11T12:00:07Z ERROR [db] connection refused (attempt 3/5)\n" * 2000,
]

_NO_NETWORK = '''
"""Installed by the offline test: any attempt to reach the network raises."""
import socket


class NetworkDisabled(OSError):
    pass


def _refuse(*args, **kwargs):
    raise NetworkDisabled("network access attempted in the offline test")


class _NoSocket(socket.socket):
    def __init__(self, *args, **kwargs):
        _refuse()


socket.socket = _NoSocket
socket.create_connection = _refuse
socket.getaddrinfo = _refuse
socket.gethostbyname = _refuse
socket.socketpair = _refuse
'''

_CHILD = r"""
import json, os, socket, sys

# The guard is live: no socket, no name lookup, and tiktoken itself cannot load.
for attempt in (lambda: socket.socket(), lambda: socket.getaddrinfo("example.org", 443),
                lambda: socket.create_connection(("127.0.0.1", 9))):
    try:
        attempt()
    except OSError as exc:
        assert type(exc).__name__ == "NetworkDisabled", exc
    else:
        raise AssertionError("the network guard is not installed")
assert os.listdir(os.environ["TIKTOKEN_CACHE_DIR"]) == []
try:
    import tiktoken
    tiktoken.get_encoding("cl100k_base")
except Exception as exc:
    tiktoken_error = type(exc).__name__
else:
    raise AssertionError("tiktoken loaded without network: the cache was not empty")

from agentout.tokens import count, count_until, get_tokenizer

samples = json.loads(sys.stdin.read())
out = {"tiktoken_error": tiktoken_error}
for name in ("o200k_base", "cl100k_base"):
    tok = get_tokenizer(name)
    out[name] = {
        "tokenizer": tok.name,
        "counts": [count(text, name) for text in samples],
        "until": [count_until(text, 10**6, name) for text in samples],
    }
print(json.dumps(out))
"""


def test_counts_are_exact_with_no_network_and_empty_caches(tmp_path: Path, reference_tiktoken):
    expected = {
        name: [len(reference_tiktoken(name).encode_ordinary(text)) for text in SAMPLES]
        for name in ("o200k_base", "cl100k_base")
    }
    guard = tmp_path / "guard"
    guard.mkdir()
    (guard / "sitecustomize.py").write_text(_NO_NETWORK, encoding="utf-8")
    home, cache = tmp_path / "home", tmp_path / "tiktoken-cache"
    home.mkdir()
    cache.mkdir()
    dead = "http://127.0.0.1:9"  # the discard port: nothing listens
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "TIKTOKEN_CACHE_DIR": str(cache),
        "PYTHONPATH": str(guard),
        "PYTHONNOUSERSITE": "1",
        "PYTHONWARNINGS": "error",  # nothing on the counting path may even warn
        **{var: dead for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")},
        **{var.lower(): dead for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")},
    }
    done = subprocess.run(
        [sys.executable, "-c", _CHILD],
        input=json.dumps(SAMPLES),
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # in particular, no fallback warning
    result = json.loads(done.stdout)
    assert result["tiktoken_error"]  # the same process could not load tiktoken's files
    for name, counts in expected.items():
        assert result[name]["tokenizer"] == name
        assert result[name]["counts"] == counts
        assert result[name]["until"] == counts
    assert list(cache.iterdir()) == []  # and nothing was cached on the way
