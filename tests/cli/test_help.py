"""The command line as a whole: help lists the commands, starts light, and each is documented."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from agentout.cli.main import COMMANDS, cli

ROOT = Path(__file__).parents[2]
HEAVY = ("bpe_openai", "rich", "toon_format", "tiktoken", "tokenizers")


def present_commands() -> list[str]:
    """Every registered command whose module exists, as ``agentout --help`` lists them."""
    return sorted(
        name
        for name, target in COMMANDS.items()
        if importlib.util.find_spec(target.split(":")[0]) is not None
    )


def test_help_lists_every_present_command() -> None:
    result = CliRunner().invoke(cli, ["--help"], prog_name="agentout")
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: agentout [OPTIONS] COMMAND [ARGS]...")
    listed = result.stdout.partition("Commands:\n")[2].splitlines()
    assert [line.split()[0] for line in listed if line.strip()] == present_commands()
    assert {"count", "fit"} <= set(present_commands())


@pytest.mark.parametrize("name", ["count", "fit"])
def test_command_help_shows_examples(name: str) -> None:
    result = CliRunner().invoke(cli, [name, "--help"], prog_name="agentout")
    assert result.exit_code == 0
    assert result.stdout.startswith(f"Usage: agentout {name} [OPTIONS]")
    assert f"\n  Examples:\n    agentout {name} " in result.stdout


# What a fresh interpreter has imported after running the CLI with some arguments: the
# help path must not load the heavy dependencies (the BPE tables, rich, toon). This tests
# what is imported, not timing, so it cannot flake on a busy machine.
_PROBE = """
import json, sys
from agentout.cli.main import cli
try:
    cli(sys.argv[1:], prog_name="agentout")
except SystemExit:
    pass
print(json.dumps(sorted({m.split(".")[0] for m in sys.modules})))
"""


def heavy_imports(*args: str, stdin: str = "") -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    return sorted(loaded & set(HEAVY))


@pytest.mark.parametrize(
    "args",
    [[], ["--help"], *([name, "--help"] for name in present_commands())],
    ids=lambda args: " ".join(args) or "no-arguments",
)
def test_help_does_not_import_heavy_dependencies(args: list[str]) -> None:
    assert heavy_imports(*args) == []


def test_the_probe_would_see_a_heavy_import() -> None:
    """The check above can fail: counting does load the BPE tables."""
    assert "bpe_openai" in heavy_imports("count", stdin="hello")


def test_importing_every_command_module_is_light() -> None:
    modules = [COMMANDS[name].split(":")[0] for name in present_commands()]
    code = "import json, sys\n" + "".join(f"import {m}\n" for m in modules)
    code += "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert set(json.loads(done.stdout)) & set(HEAVY) == set()


@pytest.mark.parametrize("name", present_commands())
def test_every_command_is_documented(name: str) -> None:
    page = ROOT / "docs" / "cli" / f"{name}.md"
    assert page.is_file(), f"agentout {name} has no docs/cli/{name}.md"
    text = page.read_text(encoding="utf-8")
    assert text.startswith(f"# agentout {name}"), f"docs/cli/{name}.md must start with its title"
    assert f"agentout {name} " in text.partition("\n")[2], "show the command being run"
