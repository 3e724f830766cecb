"""Install the Claude Code client the test suite runs for real, at one pinned version.

    python3 scripts/claude_code.py DEST      # prints the path of the client

Claude Code ships as an npm package whose native build for each platform is a package
of its own (``@anthropic-ai/claude-code-linux-x64`` ...): one binary, no Node.js needed to
run it. This takes that package's tarball from the npm registry, checks it against the
integrity the registry published for the pinned version (written here, so a changed
tarball is refused), and keeps the binary at ``DEST/<version>/claude``. Standard library
only: it runs before anything is installed. Bump ``VERSION`` and ``INTEGRITY`` together,
on purpose.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import platform
import sys
import tarfile
import urllib.request

VERSION = "2.1.332"
REGISTRY = "https://registry.npmjs.org"
# sha512 of each platform's tarball, as `npm view @anthropic-ai/claude-code-PLATFORM@VERSION
# dist.integrity` gives it.
INTEGRITY = {
    "linux-x64": "sha512-f4JWhzwYutJIHScC7/dYOPX6s28tt7ZADhsOi8zwOHq5fFPEuUeChh2NMfinSg0GrUckYxaeebC4h0DqiKzLcw==",
}


def platform_name() -> str:
    machine = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}
    arch = machine.get(platform.machine().lower(), platform.machine().lower())
    return f"{sys.platform}-{arch}"


def install(dest: str) -> str:
    """The client's path under ``dest``, downloaded and checked first if it is not there."""
    target = os.path.join(dest, VERSION, "claude")
    if os.path.isfile(target) and os.access(target, os.X_OK):
        return target
    name = platform_name()
    integrity = INTEGRITY.get(name)
    if integrity is None:
        known = ", ".join(sorted(INTEGRITY))
        raise SystemExit(f"claude_code.py: no pinned Claude Code build for {name} (known: {known})")
    package = f"claude-code-{name}"
    url = f"{REGISTRY}/@anthropic-ai/{package}/-/{package}-{VERSION}.tgz"
    with urllib.request.urlopen(url, timeout=300) as response:
        data = response.read()
    digest = "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()
    if digest != integrity:
        raise SystemExit(f"claude_code.py: {url}: integrity {digest} is not the pinned one")
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        member = archive.getmember("package/claude")
        source = archive.extractfile(member)
        assert source is not None
        os.makedirs(os.path.dirname(target), exist_ok=True)
        partial = f"{target}.{os.getpid()}.part"
        with open(partial, "wb") as out:
            out.write(source.read())
        os.chmod(partial, 0o755)
        os.replace(partial, target)
    return target


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python3 scripts/claude_code.py DEST")
    print(install(sys.argv[1]))
