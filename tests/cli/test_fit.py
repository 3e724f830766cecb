"""``agentout fit``: whole records within the budget, exact counts, and clean refusals."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentout.cli.main import cli
from agentout.formats.records import parse
from agentout.read import text as _text

Count = Callable[..., int]  # the tiktoken_count fixture (conftest.py)

ROOT = Path(__file__).parents[2]
EXAMPLES = ROOT / "examples" / "data"
INCIDENTS = EXAMPLES / "incidents.json"
EVENTS = EXAMPLES / "events.jsonl"
LOG = EXAMPLES / "app.log"
FORMATS = ["records", "json", "toon", "text", "auto"]


def run(*args: str, input: bytes | str | None = None, env: dict[str, str] | None = None) -> Any:
    return CliRunner().invoke(cli, ["fit", *args], input=input, env=env)


def shown_from(original: Any, shown: Any, cut: int | None = None) -> bool:
    """Is ``shown`` the original value, or (``cut`` characters left out, as the JSON
    account's ``cut`` says) the start of it followed by ``…``?"""
    if cut is None:
        return shown == original
    if not isinstance(shown, str) or not isinstance(original, str) or not shown.endswith("…"):
        return False
    kept = shown[:-1]
    return original.startswith(kept) and len(original) - len(kept) == cut


def assert_whole_records(
    shown: list[dict[str, Any]],
    originals: list[Any],
    cuts: dict[str, dict[str, int]] | None = None,
) -> None:
    """The records shown are the first ones, in order, each a view of its original;
    ``cuts`` is the JSON account's ``cut``: record position -> field -> characters cut."""
    assert len(shown) <= len(originals)
    for i, (fields, original) in enumerate(zip(shown, originals, strict=False)):
        if not isinstance(original, dict):
            original = {"value": original}
        if set(fields) == {"_keys"}:
            assert fields["_keys"] == list(original)
            continue
        own = [k for k in fields if k in original]
        assert own == [k for k in original if k in fields]  # order kept
        assert fields.get("_omitted", 0) == _left_out(fields, original)  # said, and exact
        cut = (cuts or {}).get(str(i), {})
        for key, value in fields.items():
            if key == "_omitted" and "_omitted" not in original:
                continue
            if key in original:
                source = original[key]
            else:  # an identity one level down, as "parent.key": none invented
                parent, _, inner = key.partition(".")
                assert isinstance(original.get(parent), dict), key
                source = original[parent][inner]
            assert shown_from(source, value, cut.get(key)), (key, value, source)


def _left_out(fields: dict[str, Any], original: dict[str, Any]) -> int:
    """How many of the record's fields a view leaves out: a field holding an object whose
    fields are shown in part (``meta.owner``) counts by its fields left out."""
    left = 0
    for key, value in original.items():
        if key in fields:
            continue
        shown = [f"{key}.{inner}" in fields for inner in value] if isinstance(value, dict) else []
        left += shown.count(False) if any(shown) else 1
    return left


# -- what it prints --------------------------------------------------------------------


def test_a_budget_or_a_preset_is_required() -> None:
    result = run(str(INCIDENTS))
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr == (
        "agentout: fit needs a budget: --max-tokens N, --max-chars N or --preset agent|verbose\n"
    )


def test_records_format_fits_whole_records_with_an_exact_count(tiktoken_count: Count) -> None:
    result = run(str(INCIDENTS), "--max-tokens", "500")
    assert (result.exit_code, result.stderr) == (0, "")
    lines = parse(result.stdout)
    kind, header = lines[0]
    assert kind == "H"
    assert list(header)[:6] == ["agentout", "mode", "source", "input", "ref", "total"]
    assert re.fullmatch(r"[0-9a-f]{16}", header["ref"])  # the complete input, kept
    assert header["mode"] == "fit"
    assert header["source"] == str(INCIDENTS)
    assert header["input"] == "json"
    assert header["total"] == 160
    assert header["tokens"] == tiktoken_count(result.stdout) <= 500
    records = [fields for kind, fields in lines[1:] if kind == "R"]
    assert len(records) == header["included"] == 160 - header["omitted"] > 0
    assert_whole_records(records, json.loads(INCIDENTS.read_text()))


def test_json_format_has_the_account_and_the_records(tiktoken_count: Count) -> None:
    result = run(str(EVENTS), "--max-tokens", "400", "--format", "json")
    assert result.exit_code == 0
    out = json.loads(result.stdout)
    assert list(out)[:6] == ["total", "included", "omitted", "tokens", "truncated", "tokenizer"]
    assert out["total"] == 2000
    assert out["included"] + out["omitted"] == 2000
    assert out["truncated"] is True
    assert out["tokenizer"] == "o200k_base"
    assert out["tokens"] == tiktoken_count(result.stdout) <= 400
    ref = out["header"].pop("ref")
    assert out["header"] == {"mode": "fit", "source": str(EVENTS), "input": "jsonl"}
    assert out["summary"] == {"more": f"agentout show {ref} --records {out['included'] + 1}:"}
    assert len(out["records"]) == out["included"]
    events = [json.loads(line) for line in EVENTS.read_text().splitlines()]
    assert_whole_records(out["records"], events, out.get("cut"))


def test_a_log_becomes_numbered_lines(tiktoken_count: Count) -> None:
    result = run(str(LOG), "--max-tokens", "200")
    assert result.exit_code == 0
    first, *rest = parse(result.stdout)
    assert first[1]["input"] == "text"
    assert first[1]["tokens"] == tiktoken_count(result.stdout) <= 200
    lines = LOG.read_text().splitlines()
    assert first[1]["total"] == len(lines)
    *shown, (kind, footer) = rest
    numbers = [fields["n"] for _, fields in shown]
    assert numbers == sorted(numbers)
    for _, fields in shown:  # whole lines, as printed
        assert fields["line"].split("\n[… ")[0] == lines[fields["n"] - 1]
    # what went wrong, and how the log ended, are what a small budget shows
    errors = [n for n, line in enumerate(lines, 1) if " ERROR " in line]
    assert errors
    assert errors[0] in numbers
    assert numbers[-1] == len(lines)
    assert (kind, footer) == ("F", {"more": f"agentout show {first[1]['ref']}"})


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("path", [INCIDENTS, EVENTS, LOG], ids=lambda p: p.name)
def test_every_format_stays_within_budget_and_repeats_itself(
    fmt: str, path: Path, tiktoken_count: Count
) -> None:
    first = run(str(path), "--max-tokens", "300", "--format", fmt)
    assert first.exit_code == 0, first.stderr
    assert tiktoken_count(first.stdout) <= 300
    assert run(str(path), "--max-tokens", "300", "--format", fmt).stdout == first.stdout
    claimed = re.search(r"\btokens[=:\"\s]+(\d+)|(\d+) tokens", first.stdout)
    assert claimed is not None
    assert int(claimed.group(1) or claimed.group(2)) == tiktoken_count(first.stdout)


def test_a_character_budget_is_exact() -> None:
    result = run(str(INCIDENTS), "--max-chars", "900")
    assert result.exit_code == 0
    assert len(result.stdout) <= 900
    assert parse(result.stdout)[0][1]["included"] >= 1


def test_presets_cap_records_and_tokens() -> None:
    agent = json.loads(run(str(EVENTS), "--preset", "agent", "--format", "json").stdout)
    assert agent["included"] == 3
    assert agent["tokens"] <= 500
    verbose = json.loads(run(str(INCIDENTS), "--preset", "verbose", "--format", "json").stdout)
    assert verbose["included"] == 10
    originals = json.loads(INCIDENTS.read_text())[:10]
    # every field whole, a null resolved_at included
    assert verbose["records"] == originals


def test_stdin_is_read_when_no_file_is_given() -> None:
    rows = "".join(json.dumps({"id": i, "ok": i % 2 == 0}) + "\n" for i in range(50))
    result = run("--max-tokens", "80", input=rows)
    assert result.exit_code == 0
    header = parse(result.stdout)[0][1]
    assert header["source"] == "<stdin>"
    assert header["input"] == "jsonl"
    assert header["total"] == 50
    assert run("-", "--max-tokens", "80", input=rows).stdout == result.stdout


def test_an_object_holding_an_array_puts_its_other_keys_in_the_header(tmp_path: Path) -> None:
    path = tmp_path / "search.json"
    items = [{"name": f"repo-{i}", "stars": 1000 - i} for i in range(40)]
    path.write_text(json.dumps({"total_count": 40, "incomplete_results": False, "items": items}))
    result = run(str(path), "--max-tokens", "150")
    header = parse(result.stdout)[0][1]
    assert header["array"] == "items"
    assert header["total_count"] == 40
    assert header["incomplete_results"] is False
    assert header["total"] == 40


def test_a_duplicate_key_warns_and_keeps_the_last_value(tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text('[{"id": 1, "id": 2}]')
    result = run(str(path), "--max-tokens", "100", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["records"] == [{"id": 2}]
    assert result.stderr == (
        f"agentout: warning: {path}:1:2: duplicate key 'id'; the last value is kept\n"
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.dictionaries(
            st.sampled_from(["id", "name", "note", "tags", "meta"]),
            st.integers(-5, 10**6)
            | st.text(max_size=120)
            | st.lists(st.integers(0, 99), max_size=12)
            | st.fixed_dictionaries({"k": st.text(max_size=30)}),
            min_size=1,
        ),
        min_size=1,
        max_size=25,
    ),
    budget=st.integers(min_value=1, max_value=600),
)
@example(rows=[{"id": "0" * 81}], budget=1)  # a long string: its index view is cut
def test_fit_never_passes_the_budget_and_shows_whole_records(
    rows: list[dict[str, Any]], budget: int, tiktoken_count: Count
) -> None:
    data = json.dumps(rows)
    result = run("--max-tokens", str(budget), "--format", "json", input=data)
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["tokens"] == tiktoken_count(result.stdout)
    if out.get("over_budget"):
        assert out["included"] == 0  # the one flagged case: the envelope alone is too big
    else:
        assert out["tokens"] <= budget
    assert out["total"] == len(rows)
    assert_whole_records(out["records"], rows, out.get("cut"))
    again = run("--max-tokens", str(budget), "--format", "json", input=data)
    assert again.stdout == result.stdout


def test_a_large_input_prints_what_packing_every_record_would(tmp_path: Path) -> None:
    # fit keeps only the records the budget could show; the output must not tell.
    from agentout.pack import pack
    from agentout.read.data import read_data
    from agentout.sources.fit import fit

    path = tmp_path / "rows.jsonl"
    path.write_text(
        "".join(json.dumps({"id": i, "msg": f"event {i}"}) + "\n" for i in range(20000))
    )
    for fmt in FORMATS:
        result = fit(str(path), max_tokens=200, format=fmt)
        expected = pack(read_data(str(path)), format=fmt, max_tokens=200)
        assert result.text == expected.text
        assert expected.stats.total == 20000


# -- bad input -------------------------------------------------------------------------


def refuse(tmp_path: Path, name: str, content: bytes, *args: str) -> Any:
    path = tmp_path / name
    path.write_bytes(content)
    result = run(str(path), "--max-tokens", "100", *args)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    return path, result.stderr


@pytest.mark.parametrize(
    ("name", "content", "where", "message"),
    [
        (
            "bad.json",
            b'[\n  {"id": 1},\n  {"id": 2,}\n]\n',
            ":3:12",
            "expecting property name enclosed in double quotes (JSON)",
        ),
        (
            "bad.jsonl",
            b'{"id": 1}\n{"id": 2}\n{"id": 3 "x": 1}\n',
            ":3:10",
            "expecting ',' delimiter (JSON)",
        ),
        ("nan.json", b'[{"ratio": NaN}]', ":1:12", "NaN is not valid JSON"),
        ("deep.json", b"[" * 5000 + b"]" * 5000, ":1:2", "JSON nested deeper than 128 levels"),
        ("empty.json", b"", "", "empty input: no records"),
        ("blank.log", b"\n\n  \n", "", "empty input: no records"),
        (
            "image.png",
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "",
            "binary data (a NUL byte at byte 8); agentout reads UTF-8 text, JSON or JSONL",
        ),
        (
            "latin1.log",
            b"ok\nna\xefve\n",
            "",
            "invalid UTF-8 at byte 5 (0xef); agentout reads UTF-8 text",
        ),
    ],
)
def test_bad_input_is_refused_with_its_location(
    tmp_path: Path, name: str, content: bytes, where: str, message: str
) -> None:
    path, stderr = refuse(tmp_path, name, content)
    assert stderr == f"agentout: {path}{where}: {message}\n"


def test_a_line_over_the_size_limit_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    big = b"start " + b"x" * (3 << 19) + b"\nnext\n"  # a 1.5 MiB first line
    path, stderr = refuse(tmp_path, "huge.log", big, "--max-record-mib", "1")
    assert stderr == (
        f"agentout: {path}:1: line longer than 1 MiB "
        "(raise the limit with --max-record-mib or AGENTOUT_MAX_RECORD_MIB)\n"
    )
    from_env = run(str(path), "--max-tokens", "100", env={"AGENTOUT_MAX_RECORD_MIB": "1"})
    assert (from_env.exit_code, from_env.stderr) == (2, stderr)
    raised = run(str(path), "--max-tokens", "100", "--max-record-mib", "2")
    assert raised.exit_code == 0
    assert parse(raised.stdout)[0][1]["total"] == 2


def test_files_that_cannot_be_read_are_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = run(str(tmp_path / "nope.json"), "--max-tokens", "100")
    assert (missing.exit_code, missing.stdout) == (2, "")
    assert missing.stderr == f"agentout: {tmp_path / 'nope.json'}: no such file\n"
    directory = run(str(tmp_path), "--max-tokens", "100")
    assert directory.stderr == f"agentout: {tmp_path}: is a directory, not a file\n"

    def denied(*args: object, **kwargs: object) -> None:
        raise PermissionError(13, "Permission denied")

    locked = tmp_path / "locked.json"
    locked.write_text("[]")
    monkeypatch.setattr(_text, "open", denied, raising=False)  # root could read a 0o000 file
    result = run(str(locked), "--max-tokens", "100")
    assert (result.exit_code, result.stderr) == (2, f"agentout: {locked}: permission denied\n")


def test_the_input_formats_offered_are_the_sources() -> None:
    from agentout.cli.fit import INPUT_FORMATS as offered
    from agentout.read.data import INPUT_FORMATS

    assert offered == INPUT_FORMATS


def test_bad_options_are_usage_errors() -> None:
    result = run(str(INCIDENTS), "--max-tokens", "-1")
    assert result.exit_code == 2
    assert "Invalid value for '--max-tokens'" in result.stderr
    result = run(str(INCIDENTS), "--max-tokens", "100", "--format", "yaml")
    assert result.exit_code == 2
    assert "Invalid value for '--format'" in result.stderr


# -- the installed script --------------------------------------------------------------


def agentout_script() -> str:
    script = Path(sys.executable).parent / "agentout"
    assert script.exists(), f"the console script is not installed next to {sys.executable}"
    return str(script)


def test_the_installed_script_fits_and_refuses(tmp_path: Path, tiktoken_count: Count) -> None:
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(
        [agentout_script(), "fit", "examples/data/app.log", "--max-tokens", "120"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    header = done.stdout.splitlines()[0]
    lines = len(LOG.read_text().splitlines())
    assert re.match(
        "H agentout=1 mode=fit source=examples/data/app.log input=text ref=[0-9a-f]{16} "
        f"total={lines} included=",
        header,
    )
    assert f" tokens={tiktoken_count(done.stdout)}" in f"{header} "
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"a": 1}\n{"a": }\n')
    failed = subprocess.run(
        [agentout_script(), "fit", str(bad), "--max-tokens", "120"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert (failed.returncode, failed.stdout) == (2, "")
    assert failed.stderr == f"agentout: {bad}:2:7: expecting value (JSON)\n"


def test_python_m_agentout_is_the_command() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "agentout", "--version"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert done.stdout.startswith("agentout, version ")


def test_bash_completion_lists_the_commands() -> None:
    import os
    import subprocess

    env = {**os.environ, "_AGENTOUT_COMPLETE": "bash_complete", "COMP_WORDS": "agentout fi",
           "COMP_CWORD": "1"}  # fmt: skip
    done = subprocess.run(
        [sys.executable, "-m", "agentout"], env=env, capture_output=True, text=True, check=False
    )
    assert "plain,fit" in done.stdout.splitlines()
    source = subprocess.run(
        [sys.executable, "-m", "agentout"], env={**os.environ, "_AGENTOUT_COMPLETE": "bash_source"},
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert "complete -o nosort -F _agentout_completion agentout" in source.stdout


@pytest.mark.parametrize(
    ("name", "content", "where"),
    [
        ("bad.csv", "a,b\n1,2,3\n", "bad.csv:2: a row of 3 cells"),
        ("bad.toml", "a = 1\nb = [\n", "bad.toml:3"),
        ("bad.yaml", "a: [1,\n", "bad.yaml:2:"),
        ("dir", None, "dir: is a directory"),
        ("nosuch.json", None, "nosuch.json: no such file"),
    ],
)
def test_bad_input_is_one_line_naming_file_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, content: str | None, where: str
) -> None:
    monkeypatch.chdir(tmp_path)
    if content is not None:
        (tmp_path / name).write_text(content)
    elif name == "dir":
        (tmp_path / name).mkdir()
    result = run(name, "--max-tokens", "100")
    assert result.exit_code == 2
    assert result.stdout == ""
    [line] = result.stderr.splitlines()
    assert line.startswith(f"agentout: {where}")


def test_a_workflow_keeps_its_on_key_and_toml_csv_read_as_records(tmp_path: Path) -> None:
    wf = tmp_path / "wf.yml"
    wf.write_text("on:\n  push: {}\nname: ci\n")
    out = json.loads(run(str(wf), "--max-tokens", "200", "--format", "json").stdout)
    assert out["records"] == [{"on": {"push": {}}, "name": "ci"}]
    cargo = tmp_path / "Cargo.toml"
    cargo.write_text('[package]\nname = "x"\n')
    out = json.loads(run(str(cargo), "--max-tokens", "200", "--format", "json").stdout)
    assert out["records"] == [{"name": "x"}]  # a single key holding a table: unwrapped
    table = tmp_path / "t.csv"
    table.write_text("a,b\n1,true\n")
    out = json.loads(run(str(table), "--max-tokens", "200", "--format", "json").stdout)
    assert out["records"] == [{"a": "1", "b": "true"}]
