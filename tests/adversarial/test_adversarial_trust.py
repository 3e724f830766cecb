"""Trust is the person's own. ``agentout reducers trust`` recorded any file it was shown:
one owned by another user (who could put it there, or change it after), and one that a
link in ``.agentout/reducers/`` leads to outside the project (a file nobody reviewed
here). Each is refused now, with the reason on one line, exit status 2, and nothing
recorded; the person's own files in the project's tree are trusted as before. The
tests run as root, so they can give a file to another user (uid 65534)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = str(Path(sys.executable).parent / "agentout")
REDUCER = 'name = "ours/diff"\nmatch = [["git", "diff"]]\n[[step]]\nskip = ["^index "]\n'
NOBODY = 65534

pytestmark = pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file away needs root"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".agentout" / "reducers").mkdir(parents=True)
    return root


def _trust(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "AGENTOUT_CONFIG_DIR": str(project.parent / "config"),
           "AGENTOUT_CACHE_DIR": str(project.parent / "cache")}  # fmt: skip
    return subprocess.run([SCRIPT, "reducers", "trust", *args], cwd=project, env=env,
                          capture_output=True, text=True, timeout=60, check=False)  # fmt: skip


def _refused(done: subprocess.CompletedProcess[str], why: str, project: Path) -> None:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert done.stderr.count("\n") == 1, done.stderr
    assert why in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert not (project.parent / "config" / "trusted-reducers.json").exists()


def test_a_file_owned_by_another_user_is_refused(project: Path) -> None:
    file = project / ".agentout" / "reducers" / "diff.toml"
    file.write_text(REDUCER)
    os.chown(file, NOBODY, NOBODY)
    for args in ((), (".agentout/reducers/diff.toml",)):
        _refused(_trust(project, *args), f"owned by another user (uid {NOBODY}), not you", project)


def test_a_folder_owned_by_another_user_is_refused(project: Path) -> None:
    folder = project / ".agentout" / "reducers"
    (folder / "diff.toml").write_text(REDUCER)
    os.chown(folder, NOBODY, NOBODY)
    _refused(_trust(project), "in a folder owned by another user", project)


def test_a_link_out_of_the_project_is_refused(project: Path) -> None:
    outside = project.parent / "elsewhere" / "diff.toml"
    outside.parent.mkdir()
    outside.write_text(REDUCER)
    (project / ".agentout" / "reducers" / "diff.toml").symlink_to(outside)
    _refused(_trust(project), "leads outside the project", project)


def test_a_reducers_folder_that_is_a_link_out_is_refused(project: Path) -> None:
    elsewhere = project.parent / "other-repo" / ".agentout" / "reducers"
    elsewhere.mkdir(parents=True)
    (elsewhere / "diff.toml").write_text(REDUCER)
    (project / ".agentout" / "reducers").rmdir()
    (project / ".agentout" / "reducers").symlink_to(elsewhere)
    _refused(_trust(project), "leads outside the project", project)


def test_a_file_outside_any_reducers_folder_is_refused(project: Path) -> None:
    (project / "loose.toml").write_text(REDUCER)
    _refused(_trust(project, "loose.toml"), "not in a project's .agentout/reducers/", project)


def test_the_persons_own_files_are_trusted(project: Path) -> None:
    folder = project / ".agentout" / "reducers"
    (folder / "diff.toml").write_text(REDUCER)
    (project / "shared").mkdir()
    (project / "shared" / "status.toml").write_text(
        'name = "ours/status"\nmatch = [["git", "status"]]\n'
    )
    (folder / "status.toml").symlink_to(project / "shared" / "status.toml")  # inside the tree
    done = _trust(project)
    assert done.returncode == 0, done.stderr
    assert "trusted .agentout/reducers/diff.toml: ours/diff" in done.stdout
    assert "ours/status" in done.stdout
