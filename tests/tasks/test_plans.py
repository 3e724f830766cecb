"""When a runner is told to use the line shell, and how: read from the command and the
makefile, never by running a recipe."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentout.reducers import Output
from agentout.sources.tasks import prepare
from agentout.sources.tasks._blocks import TaskBlocks
from agentout.sources.tasks._line import label, reducer_words
from agentout.sources.tasks._plans import _make, _makefile_shell, _npm
from agentout.sources.tasks.shell import _command_at


def _makefile(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "Makefile"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("text", "shell"),
    [
        ("all:\n\techo hi\n", "/bin/sh"),
        ("SHELL := /bin/bash\nall:\n\techo hi\n", "/bin/bash"),
        ("SHELL = bash # the shell\nall:\n\techo hi\n", "bash"),
        ("all: SHELL := /bin/bash\nall:\n\techo hi\n", None),
        ("SHELL := $(shell which bash)\n", None),
        ("SHELL += -x\n", None),
        ("SHELL := /bin/bash\nSHELL := /bin/zsh\n", None),
        ("override SHELL := /bin/bash\n", "/bin/bash"),
        ("override export SHELL := /bin/bash\n", None),
        ("include $(wildcard *.mk)\n", None),
        ("all:\n\tSHELL=/bin/bash ./run\n", None),  # read as the makefile's, to be sure
        (".SHELLFLAGS := -eu -o pipefail -c\nall:\n\techo hi\n", "/bin/sh"),
        ("export SHELL\nall:\n\techo hi\n", None),
        ("export CC SHELL\n", None),
        (".EXPORT_ALL_VARIABLES:\nall:\n\techo hi\n", None),
        ("export PATH := /x:$(PATH)\n", "/bin/sh"),
        ("export SHELL := /bin/bash\n", None),  # $SHELL in recipes would be the line shell
    ],
)
def test_makefile_shell(tmp_path: Path, text: str, shell: str | None) -> None:
    path = _makefile(tmp_path, text)
    read = _makefile_shell([str(path)], str(tmp_path))
    assert (read[0] if read else None) == shell


def test_included_makefiles_are_read(tmp_path: Path) -> None:
    (tmp_path / "shell.mk").write_text("all: SHELL := /bin/bash\n")
    path = _makefile(tmp_path, "include shell.mk\nall:\n\techo hi\n")
    assert _makefile_shell([str(path)], str(tmp_path)) is None
    (tmp_path / "one.mk").write_text(".ONESHELL:\n")
    path = _makefile(tmp_path, "include one.mk\nall:\n\techo hi\n")
    assert _makefile_shell([str(path)], str(tmp_path)) == ("/bin/sh", True)


@pytest.mark.parametrize(
    "argv",
    [
        ("make", "-n", "all"),
        ("make", "-kn"),
        ("make", "--dry-run"),
        ("make", "-Oline"),
        ("make", "--output-sync=target"),
        ("make", "SHELL=/bin/bash", "all"),
        ("make", "-f", "missing.mk"),
        ("make", "-C", "nowhere"),
    ],
)
def test_make_left_alone(tmp_path: Path, argv: tuple[str, ...]) -> None:
    _makefile(tmp_path, "all:\n\techo hi\n")
    assert _make(argv, str(tmp_path)) is None


def test_make_given_the_line_shell(tmp_path: Path) -> None:
    _makefile(tmp_path, "all:\n\techo hi\n")
    sub = tmp_path / "sub"
    sub.mkdir()
    (sub / "build.mk").write_text("all:\n\techo hi\n")
    assert _make(("make", "-j2", "all"), str(tmp_path)) is not None
    found = _make(("make", "-C", "sub", "-f", "build.mk"), str(tmp_path))
    assert found is not None
    assert found.build("/tmp/x/sh") == (
        "make",
        "SHELL=/tmp/x/sh --target=$@",
        "-C",
        "sub",
        "-f",
        "build.mk",
    )


def test_prepare_writes_a_private_launcher(tmp_path: Path) -> None:
    _makefile(tmp_path, "all:\n\techo hi\n")
    done = prepare(["make", "all"], str(tmp_path))
    assert done is not None
    try:
        assert done.folder is not None
        launcher = Path(done.folder) / "sh"
        assert (Path(done.folder).stat().st_mode & 0o777) == 0o700
        assert launcher.read_text().startswith("#!/bin/sh\nexec ")
        assert done.argv == ("make", f"SHELL={launcher} --target=$@", "all")
    finally:
        done.close()
    assert not launcher.exists()


def test_not_a_runner_or_off(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _makefile(tmp_path, "all:\n\techo hi\n")
    assert prepare(["ls"], str(tmp_path)) is None
    monkeypatch.setenv("AGENTOUT_TASKS", "0")
    assert prepare(["make"], str(tmp_path)) is None


@pytest.mark.parametrize(
    ("args", "at"),
    [
        (["-c", "echo hi"], 1),
        (["-ec", "echo hi"], 1),
        (["-cu", "echo hi", "recipe", "arg"], 1),
        (["-e", "-o", "pipefail", "-c", "echo hi"], 4),
        (["--norc", "-c", "echo hi"], 2),
        (["script.sh"], None),
        (["-e", "script.sh"], None),
        (["-c"], None),
    ],
)
def test_where_the_line_is(args: list[str], at: int | None) -> None:
    assert _command_at(args) == at


@pytest.mark.parametrize(
    ("line", "words"),
    [
        ("ruff check src", ("ruff", "check", "src")),
        ("cd sub && ruff check .", ("ruff", "check", ".")),
        ("export X=1; git log -n 3", ("git", "log", "-n", "3")),
        ("ruff check . && mypy src", ()),
        ("echo 'unbalanced", ()),
    ],
)
def test_reducer_words(line: str, words: tuple[str, ...]) -> None:
    assert reducer_words(line) == words


def test_label(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("npm_lifecycle_event", raising=False)
    assert label("make", "check", "ruff check src") == "[agentout task check: ruff check src]"
    assert label("just", None, "echo a\necho b") == "[agentout task: echo a…]"
    monkeypatch.setenv("npm_lifecycle_event", "lint")
    assert label("npm", None, "eslint .") == "[agentout task lint: eslint .]"
    assert label("make", "x", "echo \x1b[31m") == "[agentout task x: echo \\u001b[31m]"


def test_blocks_failed_first_each_whole() -> None:
    lines = [
        "ruff check src",
        "[agentout task check: ruff check src]",
        "src/a.py:1:8 F401",
        "[agentout: exit=1 · agentout show 0123456789abcdef]",
        "make: [Makefile:2: check] Error 1 (ignored)",
        "echo done",
        "[agentout task check: echo done]",
        "done",
    ]
    reduced = TaskBlocks().reduce(Output(("make",), ("make",), lines, 0))
    assert reduced is not None
    texts = [record.fullest["text"] for record in reduced.records]
    assert texts == ["ruff check src", "\n".join(lines[1:6]), "\n".join(lines[6:])]
    assert reduced.order == [1, 2, 0]
    terse = reduced.records[1].tersest["text"]
    assert terse.splitlines() == [
        lines[1],
        "[… 1 line · --lines 3:3]",
        lines[3],
        lines[4],
        lines[5],
    ]


def test_uv_run_is_read_as_the_command_it_runs() -> None:
    """``uv run CMD`` needs no line shell: the command it runs picks the reducer (or the
    test report), as ``agentout run -- uv run pytest`` does."""
    from agentout.reducers import find
    from agentout.sources.testing.runners import detect

    runner = detect(["uv", "run", "pytest", "-q"])
    assert runner is not None
    assert runner.name == "pytest"
    found = find(["uv", "run", "ruff", "check", "."])
    assert found is not None
    assert found.name == "lint"
    assert prepare(["uv", "run", "make"]) is None  # uv's own output is not a runner's


def test_npm_and_pnpm_plans(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NPM_CONFIG_USERCONFIG", str(tmp_path / "none"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for key in [k for k in os.environ if "script_shell" in k.lower()]:
        monkeypatch.delenv(key)
    npm = _npm(("npm", "run", "lint", "--", "--fix"), str(tmp_path))
    assert npm is not None
    assert npm.build("/x/sh") == ("npm", "--script-shell=/x/sh", "run", "lint", "--", "--fix")
    pnpm = _npm(("pnpm", "test"), str(tmp_path))
    assert pnpm is not None
    assert pnpm.build("/x/sh") == ("pnpm", "--config.script-shell=/x/sh", "test")
    assert _npm(("npm", "install"), str(tmp_path)) is None
    assert _npm(("npm", "run", "x", "--script-shell=bash"), str(tmp_path)) is None
    (tmp_path / "pnpm-workspace.yaml").write_text("scriptShell: /bin/bash\n")
    assert _npm(("pnpm", "test"), str(tmp_path)) is None
    assert _npm(("npm", "test"), str(tmp_path)) is not None  # npm does not read it
