"""docs/cli/notes.md shows real output: each example on the example vault is rerun here."""

from __future__ import annotations

import re
import shlex

import pytest
from click.testing import CliRunner
from notes_support import ROOT

from agentout.cli.main import cli

PAGE = ROOT / "docs" / "cli" / "notes.md"


def _examples() -> list[tuple[str, str]]:
    """(command, output) of every ``$ agentout notes ...`` on a folder the repository has."""
    found = []
    text = PAGE.read_text(encoding="utf-8")
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.DOTALL):
        for command, output in re.findall(r"^\$ (.*)\n((?:(?!\$ ).*\n)*)", block, re.M):
            args = shlex.split(command)
            folder = ROOT / args[3]
            if args[:2] == ["agentout", "notes"] and (folder.is_dir() or "/" in args[3]):
                found.append((command, output))
    return found


def test_the_page_has_examples_of_every_command() -> None:
    commands = {shlex.split(command)[2] for command, _ in _examples()}
    assert commands == {"index", "context", "tree", "path"}


@pytest.mark.parametrize(("command", "output"), _examples())
def test_documented_output_is_what_the_command_prints(
    command: str, output: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv("AGENTOUT_TOKENIZER", raising=False)
    result = CliRunner().invoke(cli, shlex.split(command)[1:], prog_name="agentout")
    assert result.output == output, f"docs/cli/notes.md: update the output of `{command}`"
