"""``agentout reducers trust``: a project's reducer files are used only once trusted, and
only while their bytes are the ones trusted; an ignored one says so once, on stderr."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from agentout.cli.main import cli
from agentout.reducers import find
from agentout.reducers.trust import TRUST_FILE, TrustList

DIFF = 'name = "ours/diff"\nmatch = [["git", "diff"]]\n[[step]]\nskip = ["^index "]\n'
STATUS = 'name = "ours/status"\nmatch = [["git", "status"]]\n'


@pytest.fixture(autouse=True)
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with two reducer files, and a config directory of its own."""
    root = tmp_path / "project"
    folder = root / ".agentout" / "reducers"
    folder.mkdir(parents=True)
    (folder / "diff.toml").write_text(DIFF)
    (folder / "status.toml").write_text(STATUS)
    monkeypatch.chdir(root)
    monkeypatch.setenv("AGENTOUT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("AGENTOUT_CACHE_DIR", str(tmp_path / "cache"))
    return root


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, ["reducers", *args])


def name_of(argv: list[str]) -> str | None:
    reducer = find(argv)
    return None if reducer is None else reducer.name


def states() -> dict[str, str]:
    rows = json.loads(invoke("list", "--format", "json").output)
    return {Path(row["path"]).name: row["state"] for row in rows if row["source"] == "project"}


def test_an_untrusted_file_is_not_used_until_trusted(project: Path) -> None:
    assert name_of(["git", "diff"]) == "git/diff"  # agentout's own
    result = invoke("trust")
    assert result.exit_code == 0, result.output
    assert "trusted .agentout/reducers/diff.toml: ours/diff (git diff) sha256:" in result.output
    assert "trusted .agentout/reducers/status.toml: ours/status (git status)" in result.output
    assert name_of(["git", "diff"]) == "ours/diff"
    assert name_of(["git", "status"]) == "ours/status"


def test_a_trusted_file_that_changes_is_ignored_until_trusted_again(project: Path) -> None:
    assert invoke("trust").exit_code == 0
    diff = project / ".agentout" / "reducers" / "diff.toml"
    diff.write_text('description = "changed"\n' + DIFF)
    assert name_of(["git", "diff"]) == "git/diff"
    assert name_of(["git", "status"]) == "ours/status"  # the other file is as it was
    assert states() == {"diff.toml": "changed", "status.toml": "trusted"}
    assert invoke("trust", str(diff)).exit_code == 0
    assert name_of(["git", "diff"]) == "ours/diff"


def test_list_shows_each_project_files_state(project: Path) -> None:
    assert states() == {"diff.toml": "untrusted", "status.toml": "untrusted"}
    assert invoke("trust", ".agentout/reducers/status.toml").exit_code == 0
    assert states() == {"diff.toml": "untrusted", "status.toml": "trusted"}
    text = invoke("list").output
    assert any(
        line.split()[:3] == ["ours/diff", "project", "untrusted"] for line in text.splitlines()
    )
    assert any(line.split()[2] == "used" for line in text.splitlines() if "agentout" in line)


def test_revoke_forgets_a_file_or_a_folder(project: Path) -> None:
    assert invoke("trust").exit_code == 0
    revoked = invoke("trust", "--revoke", ".agentout/reducers/diff.toml")
    assert revoked.output == "no longer trusted: .agentout/reducers/diff.toml\n"
    assert name_of(["git", "diff"]) == "git/diff"
    assert name_of(["git", "status"]) == "ours/status"
    everything = invoke("trust", "--revoke")
    assert everything.output == "no longer trusted: .agentout/reducers/status.toml\n"
    assert name_of(["git", "status"]) == "git/status"
    assert invoke("trust", "--revoke").output == "nothing under .agentout/reducers was trusted\n"


def test_trust_list_says_what_is_trusted_changed_or_missing(project: Path) -> None:
    assert invoke("trust", "--list").output == "no reducer files are trusted\n"
    assert invoke("trust").exit_code == 0
    folder = project / ".agentout" / "reducers"
    (folder / "diff.toml").write_text(DIFF + "# edited\n")
    (folder / "status.toml").unlink()
    lines = invoke("trust", "--list").output.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["changed", ".agentout/reducers/diff.toml"],
        ["missing", ".agentout/reducers/status.toml"],
    ]
    assert all(line.split()[2].startswith("sha256:") for line in lines)


def test_the_record_is_private_deterministic_and_keyed_by_real_path(
    project: Path, tmp_path: Path
) -> None:
    assert invoke("trust").exit_code == 0
    record = tmp_path / "config" / TRUST_FILE
    assert stat.S_IMODE(record.stat().st_mode) == 0o600
    first = record.read_bytes()
    assert invoke("trust").exit_code == 0
    assert record.read_bytes() == first  # same files, same bytes
    files = json.loads(first)["files"]
    folder = os.path.realpath(project / ".agentout" / "reducers")
    assert sorted(files) == [f"{folder}/diff.toml", f"{folder}/status.toml"]
    assert all(len(value) == len("sha256:") + 64 for value in files.values())


def test_the_same_text_elsewhere_is_not_trusted(project: Path, tmp_path: Path) -> None:
    """Trust is for a file, not a text: a clone of the same repository asks again."""
    assert invoke("trust").exit_code == 0
    other = tmp_path / "clone"
    (other / ".agentout" / "reducers").mkdir(parents=True)
    (other / ".agentout" / "reducers" / "diff.toml").write_text(DIFF)
    reducer = find(["git", "diff"], cwd=other)
    assert reducer is not None
    assert reducer.name == "git/diff"


def test_a_file_that_cannot_be_used_is_refused_and_nothing_recorded(
    project: Path, tmp_path: Path
) -> None:
    (project / ".agentout" / "reducers" / "z-bad.toml").write_text(
        'name = "bad"\nmatch = [["x"]]\nfacts = ["(a+)+(?=b)"]\n'
    )
    result = invoke("trust")
    assert result.exit_code == 2
    assert "z-bad.toml: facts[0]:" in result.output
    assert "not a valid RE2 pattern" in result.output
    assert "Traceback" not in result.output
    assert "trusted" not in result.output  # the good files before it are not said to be
    assert not (tmp_path / "config" / TRUST_FILE).exists()
    assert name_of(["git", "diff"]) == "git/diff"


def test_trust_outside_a_project_says_what_to_name(tmp_path: Path) -> None:
    os.chdir(tmp_path)
    result = invoke("trust")
    assert result.exit_code == 2
    assert "no .agentout/reducers/ here or above" in result.output


def test_an_ignored_file_is_named_once_on_stderr_and_only_when_it_would_match(
    project: Path, tmp_path: Path
) -> None:
    """One line a run at most, and once for each version of the file: a task runner's
    recipe lines are runs of their own, and the agent reads every one's output."""
    import subprocess
    import sys

    def stderr_of(*commands: list[str]) -> str:
        code = "import sys\nfrom agentout.reducers import find\n" + "".join(
            f"print(find({argv!r}).name)\n" for argv in commands
        )
        done = subprocess.run(
            [sys.executable, "-c", code], cwd=project, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stderr

    line = (
        "agentout: .agentout/reducers/diff.toml not used for this command: not trusted "
        "(`agentout reducers trust` to use it)\n"
    )
    assert stderr_of(["ls"]) == ""
    assert stderr_of(["git", "diff"], ["git", "status"], ["git", "diff"]) == line
    assert stderr_of(["git", "diff"]) == ""  # told already
    (project / ".agentout" / "reducers" / "diff.toml").write_text(DIFF + "# v2\n")
    assert stderr_of(["git", "diff"]) == line  # another version of the file
    which = invoke("which", "git", "diff").output
    assert which.splitlines() == [
        f"ignored: {line.removeprefix('agentout: ').strip()}",
        "git/diff  (agentout): git diff",
    ]


def test_a_trust_record_that_cannot_be_read_trusts_nothing(project: Path, tmp_path: Path) -> None:
    assert invoke("trust").exit_code == 0
    record = tmp_path / "config" / TRUST_FILE
    record.write_text("{not json")
    assert name_of(["git", "diff"]) == "git/diff"
    assert TrustList.load().files == {}
    listed = invoke("trust", "--list")
    assert listed.exit_code == 2
    assert TRUST_FILE in listed.output
    assert "cannot read the trusted reducers" in listed.output
