"""``agentout count DIR``: each text file as git sees it, and a total; ``approx`` said."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentout import tokens
from agentout.cli.main import cli
from agentout.read.tree import text_files


def run(*args: str, input: str | None = None) -> Any:
    return CliRunner().invoke(cli, ["count", *args], input=input)


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(
        root,
        {
            ".gitignore": "*.log\nnode_modules/\n/top-only.txt\n",
            ".git/info/exclude": "private.txt\n",
            ".git/HEAD": "ref: refs/heads/main\n",
            "private.txt": "kept out by info/exclude\n",
            "top-only.txt": "anchored to the top\n",
            "README.md": "# hello\n",
            "src/.gitignore": "!keep.log\nbuild/\n*.tmp\n",
            "src/app.py": "print('hi')\n",
            "src/top-only.txt": "not at the top, so counted\n",
            "src/debug.log": "ignored\n",
            "src/keep.log": "included again by src/.gitignore\n",
            "src/build/out.py": "ignored folder\n",
            "src/deep/x.tmp": "ignored by src/.gitignore\n",
            "src/deep/y.py": "y = 1\n",
            "src/image.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "node_modules/m.js": "ignored\n",
            "Zeta.txt": "upper case sorts first\n",
        },
    )
    (root / "link.py").symlink_to(root / "src" / "app.py")
    return root


EXPECTED = [
    ".gitignore",
    "README.md",
    "Zeta.txt",
    "src/.gitignore",
    "src/app.py",
    "src/deep/y.py",
    "src/keep.log",
    "src/top-only.txt",
]


def test_a_folder_lists_what_git_would(repo: Path) -> None:
    assert text_files(repo).files == EXPECTED


def test_the_listing_agrees_with_git_itself(repo: Path) -> None:
    # git's own view of the same tree (untracked and not ignored), less binaries and links
    done = subprocess.run(
        ["git", "-c", "core.quotepath=off", "ls-files", "-co", "--exclude-standard"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo)},
    )
    if done.returncode != 0:  # the fixture's .git is not a full repository: make it one
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        done = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard"],
            cwd=repo,
            capture_output=True,
            text=True,
            check=True,
        )
    listed = sorted(set(done.stdout.splitlines()) - {"link.py", "src/image.png"})
    assert listed == EXPECTED


def test_count_of_a_folder_prints_each_file_and_a_total(repo: Path, tiktoken_count: Any) -> None:
    done = run(str(repo))
    assert (done.exit_code, done.stderr) == (0, "")
    counts = [tiktoken_count((repo / name).read_text()) for name in EXPECTED]
    width = len(str(sum(counts)))
    assert done.stdout.splitlines() == [
        *(f"{n:>{width}} {repo / name}" for n, name in zip(counts, EXPECTED, strict=True)),
        f"{sum(counts):>{width}} total",
    ]
    assert run(str(repo)).stdout == done.stdout  # the same order every time


def test_folders_and_files_together_and_as_json(repo: Path, tiktoken_count: Any) -> None:
    done = run("--json", str(repo / "src" / "deep"), str(repo / "README.md"))
    assert done.exit_code == 0
    out = json.loads(done.stdout)
    assert [f["path"] for f in out["files"]] == [
        str(repo / "src" / "deep" / "y.py"),
        str(repo / "README.md"),
    ]
    assert out["total"] == tiktoken_count("y = 1\n") + tiktoken_count("# hello\n")
    assert "approx" not in out


def test_a_subfolder_follows_the_ignore_files_above_it(repo: Path) -> None:
    assert text_files(repo / "src").files == [
        ".gitignore",
        "app.py",
        "deep/y.py",
        "keep.log",
        "top-only.txt",
    ]
    # a folder asked for by name is counted even though a rule above ignores it
    assert text_files(repo / "node_modules").files == ["m.js"]


def test_a_folder_given_with_dot_is_named_as_git_would(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(repo / "src")
    lines = run(".").stdout.splitlines()
    assert [line.split()[-1] for line in lines] == [
        ".gitignore",
        "app.py",
        "deep/y.py",
        "keep.log",
        "top-only.txt",
        "total",
    ]


def test_an_empty_folder_counts_zero(tmp_path: Path) -> None:
    done = run(str(tmp_path))
    assert (done.exit_code, done.stdout) == (0, "0 total\n")


def test_a_file_there_that_is_not_utf8_is_left_out_and_said(tmp_path: Path) -> None:
    write(tmp_path, {"a.txt": "fine\n", "b.txt": b"caf\xe9\n"})
    done = run(str(tmp_path))
    assert done.exit_code == 0
    assert [line.split()[-1] for line in done.stdout.splitlines()] == [
        str(tmp_path / "a.txt"),
        "total",
    ]
    assert done.stderr == (
        f"agentout: warning: {tmp_path / 'b.txt'}: invalid UTF-8 at byte 3 (0xe9); "
        "agentout reads UTF-8 text; not counted\n"
    )


def test_a_binary_file_named_outright_is_still_refused(repo: Path) -> None:
    done = run(str(repo / "src" / "image.png"))
    assert done.exit_code == 2
    assert "binary data (a NUL byte at byte 8)" in done.stderr


def test_a_count_that_cut_a_run_says_approx_in_its_output(tmp_path: Path) -> None:
    tokens._warned.discard("forced-cut")
    big = tmp_path / "word.txt"
    big.write_text("a" * 3_000_000)  # one "word" with no token boundary, over 2 MiB
    small = tmp_path / "small.txt"
    small.write_text("hello\n")
    done = run(str(big), str(small))
    assert done.exit_code == 0
    lines = done.stdout.splitlines()
    assert lines[0].endswith(f" {big} (approx)")
    assert lines[1].endswith(f" {small}")
    assert lines[2].endswith(" total (approx)")
    assert "the count may be off" in done.stderr
    out = json.loads(run("--json", str(big), str(small)).stdout)
    assert out["approx"] is True
    assert [f.get("approx") for f in out["files"]] == [True, None]
    alone = run(input="a" * 3_000_000)
    assert alone.stdout.endswith(" (approx)\n")
    exact = run(str(small))
    assert "approx" not in exact.stdout
