"""agentout.agents._digest.sha256 is hashlib's SHA-256, without loading OpenSSL's bindings."""

from __future__ import annotations

import hashlib
import subprocess
import sys

from agentout.agents._digest import sha256


def test_the_same_digests_as_hashlib() -> None:
    for data in (b"", b"abc", bytes(range(256)) * 1000):
        assert sha256(data).hexdigest() == hashlib.sha256(data).hexdigest()
        hasher = sha256()
        for at in range(0, len(data), 777):
            hasher.update(data[at : at + 777])
        assert hasher.hexdigest() == hashlib.sha256(data).hexdigest()


def test_no_openssl_bindings_are_loaded() -> None:
    probe = (
        "import sys; from agentout.agents._digest import sha256; sha256(b'x');"
        " print('_hashlib' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
