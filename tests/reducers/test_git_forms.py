"""Every form of git diff a user asks for keeps its change: word diffs, colour words,
summaries with a patch, -U0, renames, binary files, and git log -p; real git, real output."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from agentout.deliver.text import TextSettings, deliver_output
from agentout.read.visible import terminal_text
from agentout.reducers import find
from agentout.store.capture import Capture
from agentout.store.spill import SpillStore

ENV = {
    **os.environ,
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(repo: Path, *args: str) -> bytes:
    done = subprocess.run(["git", *args], cwd=repo, env=ENV, capture_output=True, check=True)
    return done.stdout


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    git(root, "init", "-q", "-b", "main")
    padding = "".join(f"line {i} stays the same\n" for i in range(40))
    (root / "words.txt").write_text(f"{padding}the alpha release is ready\n{padding}")
    (root / "old_name.py").write_text("".join(f"value_{i} = {i}\n" for i in range(30)))
    (root / "image.bin").write_bytes(bytes(range(256)))
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    (root / "words.txt").write_text(f"{padding}the beta release is ready\n{padding}")
    git(root, "mv", "old_name.py", "new_name.py")
    with (root / "new_name.py").open("a") as out:
        out.write("value_30 = 30\n")
    (root / "image.bin").write_bytes(bytes(range(255, -1, -1)))
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "second: alpha becomes beta")
    return root


def delivered(repo: Path, store: SpillStore, *args: str) -> tuple[str, str]:
    """What git printed (as a terminal leaves it) and what agentout gives for it."""
    argv = ("git", *args)
    raw = git(repo, *args)
    capture = Capture(threshold=1 << 20, store=store)
    capture.feed(raw)
    capture.close()
    reducer = find(argv)
    assert reducer is not None, argv
    shown = deliver_output(capture, TextSettings(1 << 20), argv=argv, reducer=reducer).text
    printed = "\n".join(terminal_text(line) for line in raw.decode().splitlines())
    return printed, shown


@pytest.fixture
def store(tmp_path: Path) -> SpillStore:
    return SpillStore(tmp_path / "spill")


@pytest.mark.parametrize(
    ("args", "change"),
    [
        (("diff", "HEAD~1", "--word-diff", "--", "words.txt"), "[-alpha-]{+beta+}"),
        (("diff", "HEAD~1", "--word-diff=plain", "--", "words.txt"), "[-alpha-]{+beta+}"),
        (("diff", "HEAD~1", "--word-diff=porcelain", "--", "words.txt"), "-alpha"),
        (("diff", "HEAD~1", "--color-words", "--", "words.txt"), "alphabeta"),
        (("diff", "HEAD~1", "--word-diff=color", "--", "words.txt"), "alphabeta"),
        (("diff", "HEAD~1", "-U0", "--", "words.txt"), "+the beta release is ready"),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else None,
)
def test_the_changed_words_are_kept(
    repo: Path, store: SpillStore, args: tuple[str, ...], change: str
) -> None:
    printed, shown = delivered(repo, store, *args)
    assert change in printed
    assert change in shown
    assert "words.txt" in shown
    assert len(shown) < len(printed)  # the 80 lines that stayed the same are left out


def test_porcelain_keeps_both_sides_of_the_change(repo: Path, store: SpillStore) -> None:
    _, shown = delivered(repo, store, "diff", "HEAD~1", "--word-diff=porcelain", "--", "words.txt")
    assert "-alpha" in shown.splitlines()
    assert "+beta" in shown.splitlines()


@pytest.mark.parametrize("summary", ["--stat", "--numstat", "--name-status"])
def test_a_summary_with_its_patch_keeps_both(repo: Path, store: SpillStore, summary: str) -> None:
    printed, shown = delivered(repo, store, "diff", "HEAD~1", summary, "-p")
    for line in printed.splitlines():
        if (
            line
            and not line.startswith(("diff --git", "index ", "---", "+++", "@@", " ", "+", "-"))
            and ("|" in line or "\t" in line)
        ):  # each file of the summary, as printed
            assert line.rstrip() in shown, line
    if "diff --git" in printed:  # --name-status shows no patch, -p or not
        assert "+value_30 = 30" in shown
        assert "-the alpha release is ready" in shown


def test_renames_and_binary_files_are_named(repo: Path, store: SpillStore) -> None:
    _, shown = delivered(repo, store, "diff", "-M", "HEAD~1")
    assert "old_name.py → new_name.py" in shown
    assert "image.bin (Binary files a/image.bin and b/image.bin differ)" in shown


def test_git_log_with_patches_names_every_commit_and_file(repo: Path, store: SpillStore) -> None:
    printed, shown = delivered(repo, store, "log", "-p", "-n", "2")
    hashes = [line.split()[1] for line in printed.splitlines() if line.startswith("commit ")]
    assert len(hashes) == 2
    for full in hashes:
        assert full[:7] in shown
    for name in ("words.txt", "new_name.py", "image.bin"):
        assert name in shown
    assert "+the beta release is ready" in shown
    assert len(shown) < len(printed)


def test_git_log_with_patches_under_a_tight_budget_still_names_them(
    repo: Path, store: SpillStore
) -> None:
    argv = ("git", "log", "-p", "-n", "2")
    capture = Capture(threshold=1 << 20, store=store)
    capture.feed(git(repo, *argv[1:]))
    capture.close()
    settings = TextSettings(1 << 20, max_chars=700)
    shown = deliver_output(capture, settings, argv=argv, reducer=find(argv)).text
    assert len(shown) <= 700
    assert "second: alpha becomes beta" in shown
    assert "first" in shown


def test_pytest_collect_only_keeps_every_test_id_grouped_by_file(
    tmp_path: Path, store: SpillStore
) -> None:
    import sys

    from agentout.reducers.facts import extract, lost

    for i in range(20):
        body = "".join(f"def test_case_{j}_of_module_{i}():\n    pass\n\n" for j in range(6))
        (tmp_path / f"test_mod_{i}.py").write_text(body)
    argv = (sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider")
    raw = subprocess.run(argv, cwd=tmp_path, capture_output=True, check=True).stdout
    reducer = find(argv)
    assert reducer is not None
    assert reducer.name == "tests/collect"
    capture = Capture(threshold=1 << 20, store=store)
    capture.feed(raw)
    capture.close()
    shown = deliver_output(capture, TextSettings(1 << 20), argv=argv, reducer=reducer)
    facts = extract(reducer.facts[0], raw.decode(), "test")
    assert len(facts) == 120
    assert lost(facts, shown.text) == []
    assert shown.form == "reduced"
    assert len(shown.text) < len(raw) * 0.7
