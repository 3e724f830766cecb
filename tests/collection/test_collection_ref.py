"""``agentout records`` names the complete set it keeps as ``agentout fit`` does: ``ref=ID``
in the header and the ``agentout show ID --records N:`` command that pages on last."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from agentout.cli.main import cli
from agentout.formats.records import parse


def agentout(*args: str) -> Any:
    return CliRunner().invoke(cli, list(args))


def test_a_spilled_set_is_named_and_paged_by_records(tmp_path: Path) -> None:
    source = tmp_path / "rows.jsonl"
    rows = [{"id": i, "level": "error" if i % 3 == 0 else "info"} for i in range(60)]
    source.write_text("".join(json.dumps(r) + "\n" for r in rows))
    done = agentout("records", str(source), "--where", "level=error")
    assert done.exit_code == 0, done.stderr
    lines = parse(done.stdout)
    head, (kind, footer) = dict(lines[0][1]), lines[-1]
    assert kind == "F"
    ident = head["ref"]
    assert Path(footer["spill"]).name == f"records-{ident}.jsonl"
    shown = [dict(f)["id"] for k, f in lines if k == "R"]
    assert footer["more"] == f"agentout show {ident} --records {len(shown) + 1}:"
    page = parse(agentout("show", ident, "--records", f"{len(shown) + 1}:").stdout)
    rest = [dict(f)["id"] for k, f in page if k == "R"]
    assert shown + rest == [r["id"] for r in rows if r["level"] == "error"]


def test_a_page_that_shows_everything_names_nothing(tmp_path: Path) -> None:
    source = tmp_path / "rows.jsonl"
    source.write_text('{"id": 1}\n{"id": 2}\n')
    head = dict(parse(agentout("records", str(source)).stdout)[0][1])
    assert "ref" not in head
