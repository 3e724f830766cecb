"""``agentout show``: a page within budget, and clear refusals for anything not spilled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentout.cli.main import cli
from agentout.formats.records import parse
from agentout.store.spill import SpillStore
from agentout.tokens import count


@pytest.fixture(autouse=True)
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SpillStore:
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    return SpillStore.default()


def show(*args: str) -> Any:
    return CliRunner().invoke(cli, ["show", "--format", "records", *args])


def numbers(text: str) -> list[int]:
    return [f["n"] for kind, f in parse(text) if kind == "L"]


def test_a_page_is_within_budget_and_names_the_next(store: SpillStore) -> None:
    ref = store.write_text("".join(f"build step {i} done\n" for i in range(1, 501)), kind="run")
    result = show(ref.ref, "--max-tokens", "250")
    assert result.exit_code == 0
    assert count(result.stdout) <= 250
    shown = numbers(result.stdout)
    assert shown == list(range(1, len(shown) + 1))
    kind, footer = parse(result.stdout)[-1]
    assert kind == "F"
    assert footer["next"] == f"agentout show {ref.ref} --lines {shown[-1] + 1}:"
    follow = show(*footer["next"].split()[2:], "--max-tokens", "250")
    assert numbers(follow.stdout)[0] == shown[-1] + 1


def test_lines_and_grep(store: SpillStore) -> None:
    body = "".join(f"warning {i}\n" if i % 7 == 0 else f"ok {i}\n" for i in range(1, 201))
    ref = store.write_text(body, kind="run")
    result = show(str(ref.path), "--lines", "50:100", "--grep", "^warning")
    assert result.exit_code == 0
    assert numbers(result.stdout) == [i for i in range(50, 101) if i % 7 == 0]


@pytest.mark.parametrize(
    "ref",
    ["../etc/passwd", "/etc/passwd", "20250101-run-0123456789abcdef.log", "foreign.txt"],
)
def test_refusals_are_one_line_and_exit_2(ref: str, store: SpillStore) -> None:
    (store.root / "foreign.txt").write_text("not ours\n")
    result = show(ref)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith(f"agentout: {ref}: ")
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.stderr


def test_a_symlink_in_the_store_is_refused(store: SpillStore, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("private\n")
    name = "20250101-run-0123456789abcdef.log"
    (store.root / name).symlink_to(secret)
    result = show(name)
    assert result.exit_code == 2
    assert "symlink" in result.stderr
    assert "private" not in result.output


def test_a_deleted_reference_is_explained(store: SpillStore) -> None:
    ref = store.write_text("x\n", kind="run")
    ref.path.unlink()
    result = show(ref.ref)
    assert result.exit_code == 2
    assert "no such spilled file" in result.stderr


def test_a_symlinked_store_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "link"))
    result = show("20250101-run-0123456789abcdef.log")
    assert result.exit_code == 2
    assert "is a symlink" in result.stderr


def test_bad_options_exit_2(store: SpillStore) -> None:
    ref = store.write_text("x\n", kind="run")
    assert show(ref.ref, "--lines", "9:3").exit_code == 2
    assert show(ref.ref, "--grep", "[").exit_code == 2
    assert show(ref.ref, "--max-tokens", "0").exit_code == 2


def test_a_long_line_is_paged_in_parts_by_the_next_commands(store: SpillStore) -> None:
    line = "".join(f"word{i} " for i in range(5000))  # about 44,000 characters
    ref = store.write_text(f"{line}\nend\n", kind="run")
    args = [ref.ref, "--max-tokens", "1500"]
    pieces: list[str] = []
    starts: list[str] = []
    for _ in range(100):
        result = show(*args)
        assert result.exit_code == 0
        assert count(result.stdout) <= 1500
        pieces += [f["text"] for kind, f in parse(result.stdout) if kind == "L" and f["n"] == 1]
        footer = parse(result.stdout)[-1][1]
        if "next" not in footer:
            break
        args = [*footer["next"].split()[2:], "--max-tokens", "1500"]
        starts.append(footer["next"])
    assert "".join(pieces) == line
    assert any(" --lines 1: --part " in start for start in starts)  # pages inside the line


def test_a_bad_part_is_exit_2(store: SpillStore) -> None:
    ref = store.write_text("x\n", kind="run")
    result = show(ref.ref, "--part", "0")
    assert result.exit_code == 2
