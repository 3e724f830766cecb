"""Every command that takes a path: a missing one, or a folder where a file is expected
(and a file where a folder is), is one clear line naming it, exit status 2, no traceback."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agentout.cli.main import cli

# {missing}: a path that does not exist; {folder}: a folder; {file}: a file
CASES = [
    (["fit", "{missing}", "--max-tokens", "50"], "{missing}: no such file"),
    (["fit", "{folder}", "--max-tokens", "50"], "{folder}: is a directory, not a file"),
    (["fit", "{file}/x", "--max-tokens", "50"], "{file}/x: no such file"),
    (["records", "{missing}"], "{missing}: no such file"),
    (["records", "{missing}.json"], "{missing}.json: no such file"),
    (["records", "{file}", "--view", "{missing}"], "{missing}: no such file"),
    (["records", "{file}", "--view", "{folder}"], "{folder}: is a directory, not a file"),
    (["count", "{missing}"], "{missing}: no such file"),
    (["count", "{file}", "{missing}"], "{missing}: no such file"),
    (["test", "{missing}.xml"], "{missing}.xml: no such file"),
    (["test", "{file}/x.xml"], "{file}/x.xml: no such file"),
    (["notes", "index", "{missing}"], "{missing}: no such folder"),
    (["notes", "index", "{file}"], "{file}: not a folder of notes"),
    (["notes", "context", "{missing}", "--note", "a"], "{missing}: no such folder"),
    (["notes", "tree", "{missing}", "a"], "{missing}: no such folder"),
    (["notes", "path", "{missing}", "a", "b"], "{missing}: no such folder"),
    (["show", "run-0123456789abcdef.log"], "run-0123456789abcdef.log: no such spilled file"),
    (["show", "run-0123456789abcdef.log", "--records", "1:"], "run-0123456789abcdef.log: no"),
    (["show", "{folder}"], "{folder}: not in the spill store"),
    (["discover", "{missing}"], "{missing}: no such file or folder"),
    (["serve", "--root", "{missing}"], "--root {missing}: no such folder"),
    (["serve", "--root", "{file}"], "--root {file}: is a file, not a folder"),
]


@pytest.mark.parametrize(("args", "message"), CASES, ids=lambda v: " ".join(v)[:40])
def test_a_bad_path_is_one_line_and_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    places = {
        "missing": str(tmp_path / "nope"),
        "folder": str(tmp_path / "folder"),
        "file": str(tmp_path / "data.json"),
    }
    (tmp_path / "folder").mkdir()
    (tmp_path / "data.json").write_text('[{"a": 1}]\n')
    result = CliRunner().invoke(cli, [a.format(**places) for a in args])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"agentout: {message.format(**places)}")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr
