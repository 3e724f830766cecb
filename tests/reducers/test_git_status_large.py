"""git status with 3,000 modified files: the branch, then as many paths as the budget
holds, in git's order, and how many more there are; never ``shown=0``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agentout.deliver.text import TextSettings, deliver_output
from agentout.formats.raw import closing_fields
from agentout.reducers import find
from agentout.store.capture import Capture
from agentout.store.spill import SpillStore
from agentout.tokens import count

PATHS = [f"src/pkg_{i // 100}/module_{i:04d}.py" for i in range(3000)]
STATUS = (
    "On branch main\n"
    "Your branch is up to date with 'origin/main'.\n\n"
    "Changes not staged for commit:\n"
    '  (use "git add <file>..." to update what will be committed)\n'
    '  (use "git restore <file>..." to discard changes in working directory)\n'
    + "".join(f"\tmodified:   {path}\n" for path in PATHS)
    + '\nno changes added to commit (use "git add" and/or "git commit -a")\n'
).encode()


@pytest.mark.parametrize("max_tokens", [None, 150, 300, 1000, 5000])
def test_the_branch_and_paths_up_to_the_budget_with_the_count_of_the_rest(
    tmp_path: Path, max_tokens: int | None
) -> None:
    capture = Capture(threshold=30_000, store=SpillStore(tmp_path / "spill"))
    capture.feed(STATUS)
    capture.close()
    argv = ["git", "status"]
    text = deliver_output(
        capture, TextSettings(30_000, max_tokens), argv=argv, reducer=find(argv)
    ).text
    if max_tokens is not None:
        assert count(text) <= max_tokens
    lines = text.splitlines()
    assert lines[0] == "On branch main (up to date with origin/main)"
    assert int(closing_fields(text)["shown"]) > 0
    (listed,) = [line for line in lines if line.startswith("unstaged: ")]
    more = re.search(r" \[… (\d+) more\]$", listed)
    shown = listed.removeprefix("unstaged: ").removesuffix(more.group(0) if more else "")
    names = [item.removeprefix("M ") for item in shown.split(", ")]
    assert names == PATHS[: len(names)]  # git's order, each one whole
    assert len(names) >= 3
    assert len(names) + (int(more.group(1)) if more else 0) == len(PATHS)
