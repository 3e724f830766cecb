"""Stack frames: whose code a frame is in, and frames read back from traceback text.

"The" location of an error is the innermost frame in the project's own code, never a
standard library, site-packages, node_modules or JDK frame. The pytest plugin decides
that on real paths (``is_project_file``); the JUnit reader only has the text a runner
wrote, so it parses frames from Python, Java, JavaScript, Rust and Go traces.
"""

from __future__ import annotations

import re
import sys
import sysconfig
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Frame", "is_library_text", "is_project_file", "parse_frames"]

_LIBRARY_DIRS = frozenset({"site-packages", "dist-packages", "node_modules", "__pypackages__"})
_LIBRARY_TEXT = (
    "site-packages",
    "dist-packages",
    "node_modules",
    "/lib/python3",
    "/lib/python2",
    "<frozen ",
    "<string>",
    "/rustc/",
    "/.cargo/registry/",
    "/.rustup/",
    "/go/pkg/mod/",
    "/usr/local/go/src/",
    "/usr/lib/go",
    "node:internal",
    "internal/process/",
    "_pytest/",
    "pluggy/",
)
_JVM_LIBRARY = (
    "java.",
    "javax.",
    "jdk.",
    "sun.",
    "com.sun.",
    "org.junit.",
    "junit.",
    "org.apache.maven.",
    "org.opentest4j.",
    "org.assertj.",
    "org.hamcrest.",
    "org.mockito.",
    "org.gradle.",
    "worker.org.gradle.",
    "kotlin.",
    "scala.",
)


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    func: str = ""


def _system_dirs() -> tuple[Path, ...]:
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    for name in ("stdlib", "platstdlib", "purelib", "platlib"):
        try:
            paths.add(sysconfig.get_path(name))
        except KeyError:  # pragma: no cover - every CPython has these
            continue
    return tuple(Path(p).resolve() for p in paths if p)


_SYSTEM: tuple[Path, ...] | None = None


def is_project_file(path: Path, root: Path) -> bool:
    """Whether ``path`` is the project's own code: under ``root``, not in an environment."""
    global _SYSTEM
    if _SYSTEM is None:
        _SYSTEM = _system_dirs()
    try:
        path = path.resolve()
    except OSError:
        return False
    if not path.is_relative_to(root) or _LIBRARY_DIRS.intersection(path.parts):
        return False
    return not any(path.is_relative_to(d) for d in _SYSTEM if not root.is_relative_to(d))


def is_library_text(frame: Frame) -> bool:
    """Whether a frame read from text is in a library, runtime or test framework."""
    if frame.func.startswith(_JVM_LIBRARY):
        return True
    path = frame.path.replace("\\", "/")
    return any(part in path for part in _LIBRARY_TEXT)


# Each style: a pattern and whether its traces list the innermost frame first.
_PY_NATIVE = re.compile(
    r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>\S+))?', re.M
)
_PY_PYTEST = re.compile(
    r"^(?P<path>[^\s:\"'<>][^:\n]*?\.\w+):(?P<line>\d+):(?: in (?P<func>\S+))?", re.M
)
_JAVA = re.compile(r"^\s*at (?P<func>[\w$.<>/]+)\((?P<path>[^():\s]+):(?P<line>\d+)\)", re.M)
_JS = re.compile(
    r"^\s*at (?:(?P<func>[^\n(]+?) \()?(?P<path>[^\s()]+?):(?P<line>\d+):\d+\)?\s*$", re.M
)
_RUST = re.compile(r"panicked at (?:'[^\n]*', )?(?P<path>[^\s:]+):(?P<line>\d+):\d+")
_GO = re.compile(r"^\s+(?P<path>[\w./-]+\.go):(?P<line>\d+): ", re.M)
_GO_STACK = re.compile(r"^\s+(?P<path>\S+\.go):(?P<line>\d+)(?: \+0x[0-9a-f]+)?$", re.M)
_STYLES: tuple[tuple[re.Pattern[str], bool], ...] = (
    (_PY_NATIVE, False),
    (_PY_PYTEST, False),
    (_JAVA, True),
    (_JS, True),
    (_RUST, True),
    (_GO_STACK, True),
    (_GO, False),
)
_SCAN_CHARS = 200_000


def _java_path(frame: Frame) -> Frame:
    """``com.shop.Cart.total`` in ``Cart.java`` -> ``com/shop/Cart.java``."""
    parts = frame.func.split(".")
    if len(parts) > 2 and "/" not in frame.path:
        package = "/".join(parts[:-2])
        return Frame(f"{package}/{frame.path}", frame.line, frame.func)
    return frame


def _path(text: str) -> str:
    """A frame's path; node names an ES module's file by its URL (``file:///a/b.js``)."""
    if text.startswith("file://"):
        from urllib.parse import unquote, urlsplit

        return unquote(urlsplit(text).path)
    return text


def parse_frames(text: str) -> list[Frame]:
    """Frames in ``text``, outermost first, from the first trace style found in it."""
    text = text[:_SCAN_CHARS]
    for pattern, innermost_first in _STYLES:
        found = [
            Frame(
                _path(m.group("path")),
                int(m.group("line")),
                (m.groupdict().get("func") or "").strip(),
            )
            for m in pattern.finditer(text)
        ]
        if found:
            if pattern is _JAVA:
                found = [_java_path(f) for f in found]
            return found[::-1] if innermost_first else found
    return []
