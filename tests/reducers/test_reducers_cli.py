"""``agentout reducers``: list, which, show, eject (the copy shadows the built-in), verify;
reducer files from the project and the user, their errors, and what they may not write."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentout.cli.main import cli
from agentout.reducers import command_words, find
from agentout.reducers.spec import SpecError
from agentout.reducers.spec_file import load_spec


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project directory of its own and a config directory of its own."""
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("AGENTOUT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENTOUT_CACHE_DIR", str(tmp_path / "cache"))
    return project


def invoke(*args: str) -> object:
    return CliRunner().invoke(cli, ["reducers", *args])


def trust() -> None:
    """Trust the project's reducer files, as the user does before they are used."""
    result = invoke("trust")
    assert result.exit_code == 0, result.output  # type: ignore[attr-defined]


def test_command_words_take_wrappers_and_global_options_off() -> None:
    assert command_words(["env", "A=1", "uv", "run", "python", "-m", "pytest", "-x"]) == (
        "pytest",
        "-x",
    )
    assert command_words(["git", "-C", "repo", "--no-pager", "log", "-n", "3"]) == (
        "git",
        "log",
        "-n",
        "3",
    )
    assert command_words(["/usr/bin/npx", "--yes", "eslint", "."]) == ("eslint", ".")
    assert command_words(["timeout", "5", "cargo", "+nightly", "build"]) == ("cargo", "build")
    # a word inside an argument is never a match: only the command's own words count
    assert find(["echo", "git status"]) is None
    assert find(["grep", "-rn", "git log", "src"]).name == "search/grep"  # type: ignore[union-attr]


def test_list_names_every_builtin_in_order() -> None:
    result = invoke("list", "--format", "json")
    rows = json.loads(result.output)  # type: ignore[attr-defined]
    names = [row["name"] for row in rows]
    assert {"git/status", "git/log", "git/diff", "lint", "build", "search/grep"} <= set(names)
    assert all(row["source"] == "agentout" and row["description"] for row in rows)


def test_which_names_the_reducer_or_says_none() -> None:
    assert invoke("which", "git", "-C", "x", "status").output.startswith(  # type: ignore[attr-defined]
        "git/status  (agentout): git status"
    )
    assert invoke("which", "cat notes.txt").output.startswith("none: cat notes.txt")  # type: ignore[attr-defined]


def test_show_prints_the_toml_and_a_python_reducers_facts() -> None:
    toml = invoke("show", "git/status").output  # type: ignore[attr-defined]
    assert 'name = "git/status"' in toml
    load_spec("shown.toml", toml)  # what show prints is a reducer file
    python = invoke("show", "git/log").output  # type: ignore[attr-defined]
    assert "facts (every match must be kept)" in python
    assert invoke("show", "nope").exit_code == 2  # type: ignore[attr-defined]


def test_an_ejected_copy_shadows_the_builtin_and_verify_checks_it(isolated: Path) -> None:
    result = invoke("eject", "git/status")
    assert result.exit_code == 0  # type: ignore[attr-defined]
    copy = isolated / ".agentout" / "reducers" / "git-status.toml"
    text = copy.read_text()
    copy.write_text(text.replace('label = "staged:"', 'label = "to commit:"'))
    which = invoke("which", "git", "status").output  # type: ignore[attr-defined]
    assert which.splitlines() == [  # not trusted yet: not used
        "ignored: .agentout/reducers/git-status.toml not used for this command: not trusted "
        "(`agentout reducers trust` to use it)",
        "git/status  (agentout): git status",
    ]
    trust()
    which = invoke("which", "git", "status").output  # type: ignore[attr-defined]
    assert which.startswith("git/status  (project)")
    assert invoke("eject", "git/status").exit_code == 2  # type: ignore[attr-defined]
    checked = invoke("verify", "git/status", "--format", "json")
    report = json.loads(checked.output)  # type: ignore[attr-defined]
    assert report["ok"] is True
    assert report["cases"]


def test_verify_passes_on_every_builtin_with_every_fact_kept() -> None:
    result = invoke("verify", "--require-all", "--format", "json")
    report = json.loads(result.output)  # type: ignore[attr-defined]
    assert result.exit_code == 0, report  # type: ignore[attr-defined]
    assert report["without_cases"] == []
    assert all(case["ok"] and case["tokens"] <= case["raw_tokens"] + 6 for case in report["cases"])


def test_verify_fails_a_reducer_that_loses_a_fact(isolated: Path) -> None:
    folder = isolated / ".agentout" / "reducers"
    folder.mkdir(parents=True)
    (folder / "lossy.toml").write_text(
        'name = "git/status"\nmatch = [["git", "status"]]\n'
        "facts = ['^\\t(?:modified|new file):\\s+(\\S+)$']\n"
        "[[step]]\nskip = ['^\\t']\n"
    )
    result = invoke("verify", "git/status")
    assert result.exit_code == 1  # type: ignore[attr-defined]
    assert "lost" in result.output  # type: ignore[attr-defined]


_REPLACE = (
    'name = "x"\nmatch = [["x"]]\n[[step]]\nreplace = [{{pattern = "a", with = "{template}"}}]\n'
)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("name = \n", "not valid TOML"),
        ('name = "x"\n', "match: expected"),
        ('name = "x"\nmatch = [["x"]]\n[[step]]\nbogus = 1\n', "step[0]: expected one of"),
        ('name = "x"\nmatch = [["x"]]\nfacts = ["("]\n', "facts[0]"),
        (_REPLACE.format(template="[agentout: ok]"), "agentout's own markers"),
        (_REPLACE.format(template="b\\u202ec"), "U+202E"),
    ],
)
def test_a_bad_reducer_file_is_refused_naming_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(SpecError, match=re.escape(message)):
        load_spec("bad.toml", text, check=True)


def test_a_broken_user_reducer_is_skipped_with_one_line_and_the_builtin_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "config" / "reducers"
    folder.mkdir(parents=True)
    (folder / "broken.toml").write_text('name = "x"\nmatch = [["git", "status"]\n')
    reducer = find(["git", "status"])
    assert reducer is not None
    assert reducer.name == "git/status"
    err = capsys.readouterr().err
    assert "broken.toml" in err
    assert "not used" in err


def test_a_user_reducer_comes_after_the_project_and_before_the_builtin(
    isolated: Path, tmp_path: Path
) -> None:
    user = tmp_path / "config" / "reducers"
    user.mkdir(parents=True)
    (user / "mine.toml").write_text('name = "mine"\nmatch = [["git", "status"]]\n')
    assert find(["git", "status"]).name == "mine"  # type: ignore[union-attr]
    project = isolated / ".agentout" / "reducers"
    project.mkdir(parents=True)
    (project / "ours.toml").write_text('name = "ours"\nmatch = [["git", "status"]]\n')
    assert find(["git", "status"]).name == "mine"  # type: ignore[union-attr]
    trust()
    assert find(["git", "status"]).name == "ours"  # type: ignore[union-attr]
