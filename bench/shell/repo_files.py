"""What the corpus changes in its clone of this project: a commit, bugs, broken files.

Each text here is written into the clone at bench time; none of it is part of agentout.
"""

from __future__ import annotations

# The agent's last commit: a small feature with its tests (``git show HEAD``, ``git log``).
COMMIT_SUBJECT = "Byte and duration units for reports"
COMMIT_BODY = (
    "Reports print sizes and timings in several places; one helper for each keeps them\n"
    "consistent (powers of 1000, one decimal from KB up; ms under a second).\n"
)
COMMIT_FILES = {
    "src/agentout/_units.py": '''"""Byte and duration units for reports."""

from __future__ import annotations

_BYTE_UNITS = ("B", "KB", "MB", "GB", "TB")


def human_bytes(size: int) -> str:
    """``1536`` -> ``"1.5 KB"``: powers of 1000, one decimal from KB up."""
    value = float(size)
    for unit in _BYTE_UNITS:
        if value < 1000 or unit == _BYTE_UNITS[-1]:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    raise AssertionError("unreachable")


def human_seconds(seconds: float) -> str:
    """``0.0042`` -> ``"4.2 ms"``, ``75`` -> ``"1 min 15 s"``."""
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    if seconds < 60:
        return f"{seconds:.2f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"
''',
    "tests/test_units.py": """from __future__ import annotations

import pytest

from agentout._units import human_bytes, human_seconds


@pytest.mark.parametrize(
    ("size", "text"), [(0, "0 B"), (999, "999 B"), (1536, "1.5 KB"), (3_200_000, "3.2 MB")]
)
def test_human_bytes(size: int, text: str) -> None:
    assert human_bytes(size) == text


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.0042, "4.2 ms"), (1.5, "1.50 s"), (75, "1 min 15 s")]
)
def test_human_seconds(seconds: float, text: str) -> None:
    assert human_seconds(seconds) == text
""",
}

# Bugs: (path, text, replacement, staged). A bug whose text the project no longer has is
# left out and named in the bench's notes; the tests it breaks are in PYTEST_FILES.
BUGS = (
    (
        "src/agentout/formats/csv.py",
        "elif list(record) != keys:",
        "elif len(record) != len(keys):",
        True,
    ),
    (
        "src/agentout/sources/notes/parse.py",
        'return data.count(b"\\n", 0, offset) + 1',
        'return data.count(b"\\n", 0, offset)',
        False,
    ),
    (
        "src/agentout/sources/notes/parse.py",
        'items: Sequence[Any] = value.replace(",", " ").split()',
        'items: Sequence[Any] = value.split(" ")',
        False,
    ),
    (
        "src/agentout/sources/notes/parse.py",
        'return front, body, 2 + front.count("\\n")',
        'return front, body, 1 + front.count("\\n")',
        False,
    ),
)
PYTEST_FILES = (
    "tests/notes/test_notes_parse.py",
    "tests/formats/test_format_csv.py",
    "tests/test_units.py",
)

# A staged new page, and an unstaged paragraph appended to the README.
STAGED_FILES = {
    "docs/units.md": """# Units in reports

Sizes are printed in powers of 1000 (`1.5 KB`), durations in ms under a second
(`4.2 ms`), in seconds under a minute (`1.50 s`), then in minutes and seconds.
""",
}
README_APPEND = """
## Units

Reports print sizes in powers of 1000 and durations in ms, s or min (see docs/units.md).
"""

# Untracked files: a syntax error, a module full of lint errors, a script with type errors.
UNTRACKED_FILES = {
    "src/agentout/_draft_merge.py": '''"""Merging two runs' reports (draft)."""


def merge(left, right):
    combined = dict(left
    for key, value in right.items():
        combined[key] = value
    return combined
''',
    "src/agentout/report_cache.py": '''"""A cache of rendered reports, keyed by command."""
import os, sys
import json
from typing import Optional, List, Dict
from agentout.errors import InputError
import hashlib


CACHE = {}


def key_of(command, env={}):
    digest = hashlib.md5(command.encode()).hexdigest()
    unused = len(env)
    return digest


def load(path: Optional[str] = None) -> Dict[str, str]:
    if path == None:
        path = os.path.join(os.environ.get("HOME"), ".report-cache.json")
    try:
        with open(path) as f:
            return json.load(f)
    except:
        raise InputError(f"cannot read the cache", path)


def store(command: str, text: str, entries: List[str] = []) -> None:
    if not command in CACHE:
        CACHE[command] = text
    else:
        if CACHE[command] != text:
            CACHE[command] = text
    entries.append(command)
    print("stored %s (%d bytes)" % (command, len(text)), file=sys.stderr)


def evict(older_than):
    for command in CACHE.keys():
        if CACHE[command] is None: del CACHE[command]
    return undefined_total
''',
    "scripts/sizes.py": '''"""Print the size of each file under a directory, largest first."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def sizes(root: Path) -> dict[str, int]:
    found = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = Path(dirpath, name)
            found[str(path)] = path.stat().st_size
    return found


def largest(found: dict[str, int], count: int = 10) -> list[str]:
    ranked = sorted(found.items(), key=lambda item: item[1], reverse=True)
    return ranked[:count]


def human(size: int) -> str:
    for unit in ("B", "KB", "MB"):
        if size < 1024:
            return f"{size} {unit}"
        size /= 1024
    return f"{size} GB"


def report(root):
    for path, size in largest(sizes(root)):
        print(path, human(size))
    return len(found)


def main(argv: list[str]) -> int:
    root = Path(argv[1]) if len(argv) > 1 else None
    report(root.resolve())
    total: int = sum(sizes(root).values(), "")
    return total > 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
''',
    "TODO.md": "- units for the JSON reports too\n- merge reports of two runs\n",
}
