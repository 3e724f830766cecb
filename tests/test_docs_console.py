"""Every ```console block of README.md and docs/ runs and prints what the page shows
(``tests/docs_console.py`` says how blocks run and what may vary; ``--update`` rewrites
the pages from real runs). One test per page, each in a sandbox of its own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import docs_console

PAGES = [page for page in docs_console.pages() if docs_console.blocks(page)]


def test_the_pages_have_console_blocks() -> None:
    names = {page.relative_to(docs_console.ROOT).as_posix() for page in PAGES}
    assert {"README.md", "docs/cli/run.md", "docs/cli/fit.md", "docs/cli/gain.md"} <= names
    assert sum(len(docs_console.blocks(page)) for page in PAGES) >= 100


@pytest.mark.parametrize(
    "page", PAGES, ids=lambda page: page.relative_to(docs_console.ROOT).as_posix()
)
def test_every_console_block_prints_what_the_page_shows(page: Path) -> None:
    sandbox = docs_console.make_sandbox()
    try:
        report = docs_console.check_page(page, sandbox)
    finally:
        shutil.rmtree(sandbox, ignore_errors=True)
    assert report.outcomes, f"{page}: no command ran"
    assert not report.failures, "\n".join(outcome.explain() for outcome in report.failures)
    for block in report.skipped:  # a skip names what this machine lacks, never a breakage
        reason = block.options.skip or ""
        assert "not installed" in reason or "network" in reason, reason
