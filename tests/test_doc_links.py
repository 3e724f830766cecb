"""Every link between README.md and the pages under docs/ leads somewhere: the file is in
the repository and its ``#anchor`` is one of the page's headings (as GitHub names them),
so a heading renamed or a section dropped cannot leave a link pointing at nothing."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
_LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but ``-`` and ``_`` dropped,
    each space a ``-`` (``Bash output (`PostToolUse`)`` is ``bash-output-posttooluse``)."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip()).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of a page's headings (a repeated one gets ``-1``, ``-2`` ... after it)."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8"))
    found: set[str] = set()
    seen: dict[str, int] = {}
    for opening, inline in itertools.pairwise(tokens):
        if opening.type != "heading_open":
            continue
        name = slug(inline.content)
        times = seen.get(name, 0)
        seen[name] = times + 1
        found.add(name if times == 0 else f"{name}-{times}")
    return found


def links(page: Path) -> list[tuple[int, str]]:
    """(line, target) of each relative link of a page, code blocks and spans left out."""
    from markdown_it import MarkdownIt

    found = []
    for token in MarkdownIt("commonmark").parse(page.read_text(encoding="utf-8")):
        if token.type != "inline" or token.map is None:
            continue
        for child in token.children or []:
            target = child.attrs.get("href") if child.type == "link_open" else None
            if isinstance(target, str) and not re.match(r"[a-z][a-z0-9+.-]*:", target):
                found.append((token.map[0] + 1, target))
    return found


@pytest.mark.parametrize("page", _pages(), ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_link_leads_to_a_file_and_a_heading(page: Path) -> None:
    broken = []
    for line, target in links(page):
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists():
            broken.append(f"{page.relative_to(ROOT)}:{line}: {target}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{page.relative_to(ROOT)}:{line}: {target}: no such heading")
    assert not broken, "\n".join(broken)


def test_the_anchors_are_githubs(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# agentout hook\n\n## Bash output (`PostToolUse`)\n\n### Budgets: `config.toml`\n\n"
        "## In Claude Code's own capture (`--capture claude`)\n\n## Examples\n\n## Examples\n",
        encoding="utf-8",
    )
    assert anchors(page) == {
        "agentout-hook",
        "bash-output-posttooluse",
        "budgets-configtoml",
        "in-claude-codes-own-capture---capture-claude",
        "examples",
        "examples-1",
    }
    page.write_text("See [a](other.md#x), [b](#examples) and `[c](nope.md)`.\n", encoding="utf-8")
    assert links(page) == [(1, "other.md#x"), (1, "#examples")]
