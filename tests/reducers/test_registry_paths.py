"""Finding the reducer folders without pathlib (every command looks for them) finds what
pathlib finds: the project's ``.agentout/reducers`` from any spelling of the folder, the
user's ``reducers`` folder, agentout's own files in name order."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentout.reducers import registry
from agentout.reducers.builtin import builtins


def _by_pathlib(cwd: str) -> Path | None:
    here = Path(cwd).absolute()
    for folder in (here, *here.parents):
        if (folder / ".agentout" / "reducers").is_dir():
            return folder / ".agentout" / "reducers"
    return None


@pytest.mark.parametrize(
    "spelling", ["{root}/a/b", "{root}//a/./b/", "{root}/a/b/..", "a/b", "./a//b/.", "a/../a/b"]
)
def test_the_project_folder_is_the_one_pathlib_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str
) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    cwd = spelling.format(root=tmp_path)
    assert registry.project_dir(cwd) is None
    assert _by_pathlib(cwd) is None
    for where in (tmp_path, tmp_path / "a", tmp_path / "a" / "b"):
        (where / ".agentout" / "reducers").mkdir(parents=True)
        assert registry.project_dir(cwd) == _by_pathlib(cwd) is not None
        assert str(registry.project_dir(cwd)) == str(_by_pathlib(cwd))


def test_the_user_folder_is_read_only_when_it_is_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENTOUT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.chdir(tmp_path)
    assert [where for _, where in registry.entries() if where == "user"] == []
    folder = tmp_path / "config" / "reducers"
    folder.mkdir(parents=True)
    (folder / "mine.toml").write_text('name = "mine"\nmatch = [["mine"]]\n', encoding="utf-8")
    users = [reducer for reducer, where in registry.entries() if where == "user"]
    assert [reducer.path for reducer in users] == [str(folder / "mine.toml")]  # type: ignore[attr-defined]


def test_agentouts_own_files_in_name_order() -> None:
    folder = Path(registry.__file__).parent / "toml"
    names = [entry.name for entry in sorted(folder.glob("*.toml"))]
    shipped = [r.path for r in builtins() if hasattr(r, "path")]  # type: ignore[attr-defined]
    assert shipped == [f"<agentout>/{name}" for name in names]
    assert os.listdir(folder)  # the test reads a real folder
