"""Roots.expand: a glob never reads, names or confirms a path outside the roots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentout.mcp.guard import GuardError, Roots


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Roots, Path]:
    """A root holding data and a link out, beside a private directory with a secret."""
    root = tmp_path / "root"
    (root / "data").mkdir(parents=True)
    (root / "data" / "a.json").write_text("[]")
    (root / "data" / "b.json").write_text("[]")
    private = tmp_path / "private"
    private.mkdir()
    (private / "secret-key.json").write_text('{"k": 1}')
    os.symlink(private, root / "out")
    return Roots.of([root]), private


def test_matches_under_the_roots_come_back_checked(layout: tuple[Roots, Path]) -> None:
    roots, _ = layout
    names = [p.name for p in roots.expand("data/*.json")]
    assert names == ["a.json", "b.json"]
    assert [p.name for p in roots.expand("**/a.json")] == ["a.json"]


@pytest.mark.parametrize("pattern", ["../private/*", "../*/secret-*", "out/*", "out/secret-*"])
def test_a_glob_starting_outside_is_refused_naming_only_the_pattern(
    layout: tuple[Roots, Path], pattern: str
) -> None:
    roots, _ = layout
    with pytest.raises(GuardError, match="outside the allowed roots") as refused:
        roots.expand(pattern)
    assert str(refused.value).startswith(f"{pattern}: ")
    assert "secret-key" not in str(refused.value)


@pytest.mark.parametrize("pattern", ["*/secret-*", "*/../../private/secret-*", "**/secret-*"])
def test_matches_that_lead_outside_are_left_out_unnamed(
    layout: tuple[Roots, Path], pattern: str
) -> None:
    """Through a link or `..` after a wildcard: as if the file did not exist, so a caller
    cannot learn from the answer whether a name outside exists."""
    roots, private = layout
    assert roots.expand(pattern) == []
    (private / "secret-key.json").unlink()
    assert roots.expand(pattern) == []  # the same answer once it is gone


def test_a_link_in_a_root_that_points_out_is_refused_by_its_own_name(
    layout: tuple[Roots, Path],
) -> None:
    roots, private = layout
    os.symlink(private / "secret-key.json", roots.first / "data" / "c.json")
    with pytest.raises(GuardError, match=r"^data/c\.json: outside the allowed roots"):
        roots.expand("data/*.json")


def test_an_absolute_glob_under_a_root_works(layout: tuple[Roots, Path]) -> None:
    roots, _ = layout
    found = roots.expand(str(roots.first / "data" / "?.json"))
    assert [p.name for p in found] == ["a.json", "b.json"]
