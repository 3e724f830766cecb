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


@pytest.mark.parametrize("pattern", ["*/secret-*", "**/secret-*", "*/*/secret-*"])
def test_matches_that_lead_outside_are_left_out_unnamed(
    layout: tuple[Roots, Path], pattern: str
) -> None:
    """Through a link or `..` after a wildcard: as if the file did not exist, so a caller
    cannot learn from the answer whether a name outside exists."""
    roots, private = layout
    assert roots.expand(pattern) == []
    (private / "secret-key.json").unlink()
    assert roots.expand(pattern) == []  # the same answer once it is gone


@pytest.mark.parametrize(
    "pattern",
    [
        "d*/../../private/../root/data/*.json",  # out and back in: would confirm "private"
        "*/../../private/secret-*",
        "data/x[1]/../../../private/secret-key.json",
    ],
)
def test_dot_dot_after_a_wildcard_is_refused_whatever_exists(
    layout: tuple[Roots, Path], pattern: str
) -> None:
    roots, private = layout
    (roots.first / "data" / "x[1]").mkdir()
    messages = set()
    for exists in (True, False):
        if not exists:
            (private / "secret-key.json").unlink()
            private.rename(private.with_name("gone"))
        with pytest.raises(GuardError) as refused:
            roots.expand(pattern)
        messages.add(str(refused.value))
    assert messages == {f"{pattern}: '..' after a wildcard is not allowed"}


def test_a_path_back_in_through_a_link_outside_is_left_out(layout: tuple[Roots, Path]) -> None:
    """A linked directory outside that links back in still does not confirm its names."""
    roots, private = layout
    os.symlink(roots.first / "data", private / "back")
    assert roots.expand("*/back/a.json") == []  # out/back/a.json: reached through "out"
    assert [p.name for p in roots.expand("data/*.json")] == ["a.json", "b.json"]


def test_refusals_for_a_glob_outside_do_not_depend_on_what_exists(
    layout: tuple[Roots, Path],
) -> None:
    roots, private = layout
    (private / "x[1]").write_text("")
    answers = set()
    for name in ("x[1]", "y[1]"):  # the first exists, the second does not
        pattern = str(private / name)
        with pytest.raises(GuardError) as refused:
            roots.expand(pattern)
        answers.add(str(refused.value).replace(pattern, "PATTERN"))
    assert len(answers) == 1


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


@pytest.mark.parametrize("outside", ["private", "no-such-dir"])
def test_a_fixed_part_that_goes_out_and_back_in_does_not_tell_what_exists(
    layout: tuple[Roots, Path], outside: str
) -> None:
    """The rest of the pattern is matched in the resolved directory, not through the
    text, so a name outside gives the same answer whether or not it exists."""
    roots, _ = layout
    relative = f"../{outside}/../root/data/*.json"
    absolute = f"{roots.first}/../{outside}/../root/data/*.json"
    for pattern in (relative, absolute):
        assert [p.name for p in roots.expand(pattern)] == ["a.json", "b.json"]


def test_double_star_does_not_descend_into_links_and_lists_a_file_once(
    layout: tuple[Roots, Path],
) -> None:
    roots, _ = layout
    for name in ("a", "b"):  # two links to the root itself: glob's ** walks 2^40 paths
        os.symlink(".", roots.first / name)
    os.symlink("data", roots.first / "latest")
    assert [p.name for p in roots.expand("**/a.json")] == ["a.json"]
    assert [p.name for p in roots.expand("*/a.json")] == ["a.json"]  # data/ and latest/


def test_hidden_files_only_when_the_pattern_asks(layout: tuple[Roots, Path]) -> None:
    roots, _ = layout
    (roots.first / "data" / ".draft.json").write_text("[]")
    assert [p.name for p in roots.expand("data/*.json")] == ["a.json", "b.json"]
    assert [p.name for p in roots.expand("data/.*.json")] == [".draft.json"]


def test_a_nul_is_named_as_such(layout: tuple[Roots, Path]) -> None:
    roots, _ = layout
    with pytest.raises(GuardError, match="cannot hold a NUL") as refused:
        roots.expand("data\x00/*.json")
    assert "\x00" not in str(refused.value)
