"""``agentout count``: exact counts, checked against tiktoken itself, and clear refusals."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agentout.cli.main import cli

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "data"


def run(*args: str, input: bytes | str | None = None) -> Any:
    return CliRunner().invoke(cli, ["count", *args], input=input)


def test_one_file_prints_its_count_and_name(tiktoken_count: Any) -> None:
    path = EXAMPLES / "app.log"
    result = run(str(path))
    assert result.exit_code == 0
    assert result.stdout == f"{tiktoken_count(path.read_text())} {path}\n"
    assert result.stderr == ""


def test_several_files_are_aligned_and_totalled(tiktoken_count: Any, tmp_path: Path) -> None:
    small = tmp_path / "small.txt"
    small.write_text("hello world\n")
    big = EXAMPLES / "incidents.json"
    n_small, n_big = tiktoken_count("hello world\n"), tiktoken_count(big.read_text())
    width = len(str(n_small + n_big))
    result = run(str(small), str(big))
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        f"{n_small:>{width}} {small}",
        f"{n_big:>{width}} {big}",
        f"{n_small + n_big} total",
    ]


def test_stdin_is_counted_when_no_file_is_given(tiktoken_count: Any) -> None:
    text = "def add(a, b):\n    return a + b  # 加法 ✨\n"
    result = run(input=text.encode())
    assert result.exit_code == 0
    assert result.stdout == f"{tiktoken_count(text)}\n"


def test_dash_is_stdin_among_files(tiktoken_count: Any, tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("one two three")
    result = run(str(path), "-", input="four five")
    n_a, n_in = tiktoken_count("one two three"), tiktoken_count("four five")
    assert result.stdout.splitlines() == [f"{n_a} {path}", f"{n_in} <stdin>", f"{n_a + n_in} total"]


def test_json_lists_path_chars_and_tokens(tiktoken_count: Any) -> None:
    paths = [EXAMPLES / "events.jsonl", EXAMPLES / "app.log"]
    result = run("--json", *map(str, paths))
    assert result.exit_code == 0
    texts = [p.read_text(encoding="utf-8") for p in paths]
    files = [
        {"path": str(p), "chars": len(t), "tokens": tiktoken_count(t)}
        for p, t in zip(paths, texts, strict=True)
    ]
    assert json.loads(result.stdout) == {
        "tokenizer": "o200k_base",
        "files": files,
        "total": sum(f["tokens"] for f in files),
    }
    assert result.stdout.count("\n") == 1


def test_other_tokenizers(tiktoken_count: Any) -> None:
    text = (EXAMPLES / "incidents.json").read_text()
    cl100k = run("--tokenizer", "gpt-4", "--json", input=text)
    assert json.loads(cl100k.stdout)["tokenizer"] == "cl100k_base"
    assert json.loads(cl100k.stdout)["total"] == tiktoken_count(text, "cl100k_base")
    chars4 = run("--tokenizer", "chars4", input=text)
    assert chars4.stdout == f"{math.ceil(len(text) / 4)}\n"


def test_a_long_line_is_counted_exactly_in_pieces(tiktoken_count: Any) -> None:
    words = " ".join(f"w{i % 977}x{i % 13}" for i in range(300_000))  # ~2.6 MB, no newline
    assert len(words) > 2 << 20
    result = run(input=words)
    assert result.exit_code == 0
    assert result.stdout == f"{tiktoken_count(words)}\n"


def test_an_empty_file_has_no_tokens(tmp_path: Path) -> None:
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    result = run("--json", str(empty))
    assert json.loads(result.stdout)["files"] == [{"path": str(empty), "chars": 0, "tokens": 0}]


def test_a_byte_order_mark_is_not_counted(tiktoken_count: Any) -> None:
    result = run("--json", input=b"\xef\xbb\xbfhello")
    assert json.loads(result.stdout)["files"] == [{"path": "<stdin>", "chars": 5, "tokens": 1}]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            b"\x89PNG\r\n\x1a\n\x00\x00",
            "binary data (a NUL byte at byte 8); agentout reads UTF-8 text, JSON or JSONL",
        ),
        (b"caf\xe9 au lait", "invalid UTF-8 at byte 3 (0xe9); agentout reads UTF-8 text"),
    ],
)
def test_what_is_not_utf8_text_is_refused(tmp_path: Path, content: bytes, message: str) -> None:
    good = tmp_path / "good.txt"
    good.write_text("fine")
    bad = tmp_path / "bad.bin"
    bad.write_bytes(content)
    result = run(str(good), str(bad))
    assert result.exit_code == 2
    assert result.stdout == ""  # nothing half-printed for the files before it
    assert result.stderr == f"agentout: {bad}: {message}\n"


def test_missing_files_are_named(tmp_path: Path) -> None:
    missing = run(str(tmp_path / "nope.txt"))
    assert (missing.exit_code, missing.stdout) == (2, "")
    assert missing.stderr == f"agentout: {tmp_path / 'nope.txt'}: no such file\n"


def test_an_unknown_tokenizer_lists_the_known_ones() -> None:
    result = run("--tokenizer", "gpt-9000-turbo", input="x")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.startswith("agentout: unknown tokenizer 'gpt-9000-turbo'")
    assert "o200k_base" in result.stderr
    assert "Traceback" not in result.stderr
