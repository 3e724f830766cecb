"""``agentout records``: exit statuses, stdout and stderr, as a user sees them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from agentout import count
from agentout.cli.main import cli
from agentout.formats.records import parse


def _run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, ["records", *args], input=input)
    return result.exit_code, result.stdout, result.stderr


def test_agent_query_on_the_example_kb(kb: Path) -> None:
    status, out, err = _run(str(kb), "--query", "sql injection")
    assert (status, err) == (0, "")
    lines = parse(out)
    header = lines[0][1]
    assert lines[1][1]["id"] == "SEC-INJ-001"
    assert header["tokens"] == count(out) <= 500
    assert lines[-1][0] == "F"
    assert Path(lines[-1][1]["spill"]).is_file()


def test_json_format_and_verbose_mode(kb: Path) -> None:
    status, out, _ = _run(
        str(kb), "--where", "id=REL-RACE-001", "--mode", "verbose", "--format", "json"
    )
    assert status == 0
    body = json.loads(out)
    assert (body["total"], body["included"], body["truncated"]) == (1, 1, False)
    assert body["records"][0]["mitigations"][0]["id"] == "REL-RACE-001-M1"


def test_one_bad_file_among_many(kb: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("id: X\nname: [oops\nseverity: high\n")
    status, out, err = _run(str(kb), str(bad), "--where", "severity=critical")
    assert status == 0
    assert err.startswith(f"agentout: {bad}:3:")
    assert err.count("\n") == 1
    header = parse(out)[0][1]
    assert (header["files"], header["skipped"], header["total"]) == (13, 1, 3)


def test_every_file_bad_exits_2_with_each_named(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{")
    (tmp_path / "b.yaml").write_text("- [")
    (tmp_path / "c.jsonl").write_bytes(b"\x00\x01binary")
    status, out, err = _run(str(tmp_path))
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert lines[0].startswith(f"agentout: {tmp_path / 'a.json'}:1:2: ")
    assert lines[1].startswith(f"agentout: {tmp_path / 'b.yaml'}:")
    assert lines[2] == f"agentout: {tmp_path / 'c.jsonl'}: binary file (a NUL byte), not JSONL"
    assert lines[3] == "agentout: no records: none of the inputs could be read"


def test_one_bad_file_alone_exits_2_with_its_message(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('[{"id": 1},\n oops]')
    status, out, err = _run(str(tmp_path / "a.json"))
    assert (status, out) == (2, "")
    assert err == f"agentout: {tmp_path / 'a.json'}:2:2: expecting value (JSON)\n"
    assert "Traceback" not in err


def test_empty_directory_exits_2(tmp_path: Path) -> None:
    status, out, err = _run(str(tmp_path))
    assert (status, out) == (2, "")
    assert err.startswith(f"agentout: {tmp_path}: no files to read in this directory")


def test_bad_options_exit_2_without_traceback(kb: Path) -> None:
    for args in (["--filter", "a ==="], ["--where", "novalue"], ["--sort", "-"]):
        status, out, err = _run(str(kb), *args)
        assert (status, out) == (2, ""), args
        assert err.startswith("agentout: "), args
        assert "Traceback" not in err


def test_stdin_jsonl(tmp_path: Path) -> None:
    rows = "".join(
        json.dumps({"id": i, "level": "error" if i % 3 else "info"}) + "\n" for i in range(9)
    )
    status, out, _ = _run("-", "--where", "level=info", "--mode", "verbose", input=rows)
    assert status == 0
    assert [f["id"] for k, f in parse(out) if k == "R"] == [0, 3, 6]


def test_inline_delivery_flag(kb: Path) -> None:
    status, out, _ = _run(str(kb), "--delivery", "inline")
    assert status == 0
    assert parse(out)[-1][0] == "R"


def test_help_lists_the_options() -> None:
    result = CliRunner().invoke(cli, ["records", "--help"])
    assert result.exit_code == 0
    for option in ("--query", "--where", "--filter", "--sort", "--mode", "--limit",
                   "--max-tokens", "--view", "--format", "--delivery"):  # fmt: skip
        assert option in result.output


def test_where_on_a_list_of_objects_matches_or_says_it_cannot(tmp_path: Path) -> None:
    rows = [{"id": 1, "tags": [{"name": "db"}]}, {"id": 2, "tags": [{"name": "web"}]}]
    path = tmp_path / "rows.json"
    path.write_text(json.dumps(rows))
    code, out, _ = _run(str(path), "--where", "tags.name=web", "--delivery", "inline")
    assert code == 0
    assert [fields["id"] for kind, fields in parse(out) if kind == "R"] == [2]
    code, out, err = _run(str(path), "--where", "tags=web")
    assert code == 2
    assert out == ""
    assert err == (
        "agentout: --where tags=web: tags holds objects (fields: name), not values to "
        "compare; name one of their fields, e.g. --where tags.name=web\n"
    )
