"""What a user reads speaks of agentout and of public tools by name, never of the internal
design notes the project started from (they were called "seeds")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
_WORD = re.compile(r"(?i)\bseeds?\b")
# A random or hash seed is a different word.
_ALLOWED = re.compile(r"(?i)hash seed|seeded|seed: int|seed=|\(seed\)|random\.Random\(seed\)")


def _user_facing() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    files += sorted((ROOT / "src").rglob("*.py"))
    return files


@pytest.mark.parametrize("path", _user_facing(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_design_note_wording(path: Path) -> None:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if _WORD.search(line) and not _ALLOWED.search(line):
            pytest.fail(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")


def test_the_check_finds_the_word() -> None:
    assert _WORD.search("as in the TOPA seed")
    assert not _ALLOWED.search("as in the TOPA seed")
    assert _ALLOWED.search("the Python hash seed")
