"""One bad value never sinks a collection: integers in any base and size, and numbers no
float holds, are read as numbers or, past what JSON and Python hold, as their text,
flagged (``numbers_as_text``); the other files' records always come back."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentout.errors import InputError
from agentout.read.safe_yaml import load_documents
from agentout.read.stream import loads
from agentout.read.structured import toml_value
from agentout.records.values import NumberText, int_text

AGENTOUT = [sys.executable, "-m", "agentout"]
HEX = "f" * 5000  # 6,021 decimal digits: more than Python prints


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0x1f", 31),
        ("0o17", 15),
        ("0b101", 5),
        ("-0x10", -16),
        ("123_456", 123456),
        ("0x" + "f" * 100, int("f" * 100, 16)),  # long, and Python prints it: a number
        ("0x" + HEX, NumberText("0x" + HEX)),
        ("-0x" + HEX, NumberText("-0x" + HEX)),
        ("0o" + "7" * 6000, NumberText("0o" + "7" * 6000)),
        ("0b" + "1" * 20000, NumberText("0b" + "1" * 20000)),
        ("9" * 5000, NumberText("9" * 5000)),
        ("1e-400", NumberText("1e-400")),
        ("1e400", NumberText("1e400")),
        ("0.0e-999", 0.0),  # zero is zero
        ("5e-324", 5e-324),
    ],
)
def test_yaml_numbers_in_any_base_and_size(text: str, expected: object) -> None:
    (value,) = load_documents(f"v: {text}\n", "f.yaml")
    assert value["v"] == expected
    assert type(value["v"]) is type(expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0xff", 255),
        ("0x" + HEX, NumberText(int_text(int(HEX, 16)))),  # tomllib gives no text: digits
        ("0b" + "1" * 20000, NumberText(int_text(int("1" * 20000, 2)))),
        ("1e-400", NumberText("1e-400")),
        ("inf", NumberText("inf")),
    ],
)
def test_toml_numbers_in_any_base_and_size(text: str, expected: object) -> None:
    value = toml_value(f"v = {text}\n", "f.toml")["v"]
    assert value == expected
    assert type(value) is type(expected)


def test_a_toml_decimal_longer_than_python_reads_names_its_line() -> None:
    with pytest.raises(InputError) as raised:
        toml_value("a = 1\nb = 2\nc = " + "9" * 5000 + "\n", "f.toml")
    assert str(raised.value) == (
        "f.toml:3: an integer of 5,000 digits, more than the 4,300 Python reads (TOML)"
    )


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1e-400}', {"a": NumberText("1e-400")}),
        ('{"a": -1E-999}', {"a": NumberText("-1E-999")}),
        ('{"a": 1e999}', {"a": NumberText("1e999")}),
        ("[0.0, 0e-999, 2.5e-10, 1e-300]", [0.0, 0.0, 2.5e-10, 1e-300]),
    ],
)
def test_json_numbers_no_float_holds_stay_their_text(text: str, expected: object) -> None:
    value = loads(text, "x.json")
    assert value == expected
    assert json.dumps(value) == json.dumps(expected)


def test_fit_flags_the_numbers_kept_as_text(tmp_path: Path) -> None:
    data = tmp_path / "tiny.json"
    data.write_text('[{"id": 1, "v": 1e-400}, {"id": 2, "v": 1e999}, {"id": 3, "v": 0.5}]')
    done = subprocess.run(
        [*AGENTOUT, "fit", "--format", "json", "--max-tokens", "1000", str(data)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["numbers_as_text"] == 2
    assert [r["v"] for r in out["records"]] == ["1e-400", "1e999", 0.5]


def test_one_bad_value_never_sinks_a_collection(tmp_path: Path) -> None:
    """The audit's case: 20 good files and one YAML integer of 5,000 hex digits (and a
    TOML one) gave exit 2, no records, and an error naming no file."""
    folder = tmp_path / "kb"
    folder.mkdir()
    for i in range(20):
        (folder / f"good-{i:02d}.yaml").write_text(f"name: good {i}\nn: {i}\n")
    (folder / "huge-hex.yaml").write_text(f"name: hex\nn: 0x{HEX}\n")
    (folder / "huge-hex.toml").write_text(f'name = "toml hex"\nn = 0x{HEX}\n')
    (folder / "huge-decimal.toml").write_text(f'name = "toml decimal"\nn = {"9" * 5000}\n')
    done = subprocess.run(
        [*AGENTOUT, "records", str(folder), "--format", "json", "--limit", "100",
         "--mode", "verbose", "--max-tokens", "100000"],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "AGENTOUT_SPILL_DIR": str(tmp_path / "spill")},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    out = json.loads(done.stdout)
    names = sorted(r["name"] for r in out["records"])
    assert names == sorted([f"good {i}" for i in range(20)] + ["hex", "toml hex"])
    assert out["numbers_as_text"] == 2
    assert "huge-decimal.toml:2: an integer of 5,000 digits" in done.stderr
