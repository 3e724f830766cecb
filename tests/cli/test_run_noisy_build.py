"""A held-out-style noisy build through ``agentout run --max-tokens 600 -- cat build.log``:
the seven lines that matter among six thousand, and every number it prints true."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agentout.cli.main import cli
from noisy_build import MATTERS, TOTAL_LINES, WARNINGS, noisy_build, noisy_lines
from output_claims import check_claims, output_lines, shape_pattern


@pytest.fixture
def build_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, bytes]:
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    monkeypatch.delenv("AGENTOUT_INLINE_THRESHOLD", raising=False)
    data = noisy_build()
    path = tmp_path / "build.log"
    path.write_bytes(data)
    return path, data


def test_the_fixture_is_what_it_says() -> None:
    lines = output_lines(noisy_build())
    assert len(noisy_lines()) == len(lines) == TOTAL_LINES
    for line in MATTERS:
        assert lines.count(line) == 1, line
    assert sum("warning: unused variable" in line for line in lines) == WARNINGS
    assert sum("\x1b" in line for line in noisy_lines()) > 3000  # colour
    assert sum("\r" in line for line in noisy_lines()) > 1000  # progress bars


def test_at_600_tokens_seven_of_seven_lines_that_matter_and_every_count_exact(
    build_log: tuple[Path, bytes],
) -> None:
    path, data = build_log
    result = CliRunner().invoke(cli, ["run", "--max-tokens", "600", "--", "cat", str(path)])
    assert result.exit_code == 0, result.output
    shown = result.stdout.splitlines()
    missing = [line for line in MATTERS if line not in shown]
    assert missing == []
    check_claims(data, result.stdout)


def test_the_warnings_are_said_once_with_their_exact_count(build_log: tuple[Path, bytes]) -> None:
    path, data = build_log
    result = CliRunner().invoke(cli, ["run", "--max-tokens", "2000", "--", "cat", str(path)])
    claims = check_claims(data, result.stdout)
    folds = [line for line in result.stdout.splitlines() if "more like this:" in line]
    assert len(folds) == claims.folds == 1
    assert folds[0].startswith(f"[… {WARNINGS - 1} more like this: ")
    shape = shape_pattern(folds[0].split("more like this: ", 1)[1][:-1])
    assert sum(1 for line in output_lines(data) if shape.fullmatch(line)) == WARNINGS


def test_fit_on_the_log_keeps_the_traceback_s_location_first(
    build_log: tuple[Path, bytes],
) -> None:
    from agentout.sources.fit import fit

    path, _ = build_log
    text = fit(path, max_tokens=300).text
    assert "line 42, in emit" in text  # the innermost frame: where it went wrong
    assert "KeyError: 'uint128_t'" in text
    assert "line 300, in <module>" not in text  # the outermost one waits for room
    assert "npm ERR! webui@1.4.0 build" in text
