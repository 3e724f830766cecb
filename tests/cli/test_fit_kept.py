"""``agentout fit`` keeps what does not fit: the complete input in the spill store, named
in the header, paged back by records with ``agentout show REF --records A:B``."""

from __future__ import annotations

import io
import json
import os
import re
import stat
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentout.cli.main import cli
from agentout.formats.records import header, parse
from agentout.sources.fit import fit
from agentout.store.page import LineRange
from agentout.store.page_records import page_records
from agentout.store.spill import SpillStore

ROOT = Path(__file__).parents[2]
INCIDENTS = ROOT / "examples" / "data" / "incidents.json"
LOG = ROOT / "examples" / "data" / "app.log"
SEARCH = ROOT / "examples" / "data" / "search.json"


@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> SpillStore:
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(tmp_path / "spill"))
    return SpillStore.default()


def agentout(*args: str, input: bytes | str | None = None) -> Any:
    return CliRunner().invoke(cli, list(args), input=input)


def header_of(stdout: str) -> dict[str, Any]:
    kind, fields = parse(stdout)[0]
    assert kind == "H"
    return header(fields)  # the fields left out at their defaults filled in


def stored(store: SpillStore) -> list[Path]:
    return [f.path for f in store.files()]


def test_what_is_left_out_is_kept_whole_and_named(store: SpillStore) -> None:
    done = agentout("fit", str(INCIDENTS), "--max-tokens", "400")
    assert (done.exit_code, done.stderr) == (0, "")
    head = header_of(done.stdout)
    assert head["omitted"] > 0
    ref = head["ref"]
    [path] = stored(store)
    assert path.name == f"fit-{ref}.json"
    assert path.read_bytes() == INCIDENTS.read_bytes()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(store.root).st_mode) == 0o700
    footer = parse(done.stdout)[-1]
    assert footer == ("F", {"more": f"agentout show {ref} --records {head['included'] + 1}:"})
    # the same input, the same reference: the output repeats itself
    again = agentout("fit", str(INCIDENTS), "--max-tokens", "400")
    assert again.stdout == done.stdout
    assert stored(store) == [path]


def test_output_shown_whole_keeps_nothing(store: SpillStore) -> None:
    done = agentout("fit", str(SEARCH), "--max-tokens", "500")
    assert done.exit_code == 0
    head = header_of(done.stdout)
    assert (head["omitted"], head.get("reduced", 0)) == (0, 0)
    assert "ref" not in head
    assert parse(done.stdout)[-1][0] != "F"
    assert stored(store) == []


def test_records_shown_terser_are_kept_too(store: SpillStore) -> None:
    done = agentout("fit", str(SEARCH), "--max-tokens", "90")  # the header's wider view left out
    head = header_of(done.stdout)
    assert (head["included"], head["total"]) == (1, 3)
    assert len(stored(store)) == 1


def test_paging_by_records_gives_every_record_back_whole(store: SpillStore) -> None:
    done = agentout("fit", str(INCIDENTS), "--max-tokens", "300")
    command = dict(parse(done.stdout)[-1][1])["more"]
    expected = json.loads(INCIDENTS.read_text())
    seen: list[dict[str, Any]] = []
    while command:
        ref, _, span = command.removeprefix("agentout show ").partition(" --records ")
        page = agentout("show", ref, "--records", span, "--max-tokens", "1200")
        assert page.exit_code == 0, page.stderr
        head = header_of(page.stdout)
        assert head["tokens"] <= 1200
        assert not head.get("reduced")
        lines = parse(page.stdout)
        seen.extend(dict(fields) for kind, fields in lines if kind == "R")
        command = dict(lines[-1][1]).get("next", "")
    first = int(dict(parse(done.stdout)[-1][1])["more"].rsplit(" ", 1)[-1].rstrip(":"))
    assert seen == expected[first - 1 :]


def test_a_log_from_stdin_is_kept_and_paged_as_its_lines(store: SpillStore) -> None:
    text = LOG.read_text()
    done = agentout("fit", "--max-tokens", "150", input=text)
    head = header_of(done.stdout)
    [path] = stored(store)
    assert path.name == f"fit-{head['ref']}.data"  # read by its content, as stdin was
    assert path.read_text() == text
    page = agentout("show", head["ref"], "--records", "5:6")
    lines = parse(page.stdout)
    assert [dict(f) for k, f in lines if k == "R"] == [
        {"n": n, "line": text.splitlines()[n - 1]} for n in (5, 6)
    ]
    assert lines[-1] == ("F", {"shown": "5:6"})


def test_an_explicit_input_format_is_kept_for_paging(store: SpillStore, tmp_path: Path) -> None:
    source = tmp_path / "rows.json"  # JSON-looking lines, read as text on purpose
    source.write_text("".join(f'{{"i": {i}}}\n' for i in range(50)))
    done = agentout("fit", str(source), "--input-format", "text", "--max-tokens", "150")
    ref = header_of(done.stdout)["ref"]
    assert [p.suffix for p in stored(store)] == [".txt"]
    page = parse(agentout("show", ref, "--records", "50").stdout)
    assert page[1] == ("R", {"n": 50, "line": '{"i": 49}'})


def test_secrets_are_hidden_in_what_is_kept(store: SpillStore, tmp_path: Path) -> None:
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
    rows = [{"id": i, "note": f"deploy with {token}" if i == 7 else "ok"} for i in range(40)]
    source = tmp_path / "rows.json"
    source.write_text(json.dumps(rows))
    done = agentout("fit", str(source), "--max-tokens", "150")
    assert token not in done.stdout
    [path] = stored(store)
    kept = path.read_text()
    assert token not in kept
    assert "[secret: " in kept
    page = agentout("show", header_of(done.stdout)["ref"], "--records", "8")
    assert token not in page.stdout
    assert "[secret: " in page.stdout


def test_a_store_that_cannot_be_written_is_said_in_the_header(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("AGENTOUT_SPILL_DIR", str(blocker))
    done = agentout("fit", str(INCIDENTS), "--max-tokens", "300")
    assert done.exit_code == 0
    head = header_of(done.stdout)
    assert "ref" not in head
    assert head["warning"].startswith("spill store not writable")
    assert head["tokens"] <= 300


def test_show_records_refuses_line_options_and_bad_ranges(store: SpillStore) -> None:
    ref = header_of(agentout("fit", str(INCIDENTS), "--max-tokens", "300").stdout)["ref"]
    for args in (["--lines", "1:2"], ["--grep", "x"], ["--part", "2"]):
        done = agentout("show", ref, "--records", "1:2", *args)
        assert done.exit_code == 2
        assert done.stderr.startswith("agentout: --records pages by records")
    done = agentout("show", ref, "--records", "5:2")
    assert (done.exit_code, done.stderr) == (
        2,
        "agentout: --records '5:2': records count from 1 and A must not pass B\n",
    )
    raw = agentout("show", ref, "--records", "1:2", "--format", "raw")
    assert (raw.exit_code, raw.stderr) == (
        2,
        "agentout: --format raw shows lines; --records shows records in any other format\n",
    )
    past = parse(agentout("show", ref, "--records", "500:").stdout)
    assert past[0][1]["included"] == 0
    assert past[-1] == ("F", {"shown": "none"})


def test_a_record_larger_than_the_page_is_shown_alone_and_said(store: SpillStore) -> None:
    ref = header_of(agentout("fit", str(INCIDENTS), "--max-tokens", "300").stdout)["ref"]
    packed = page_records(ref, records=LineRange(3, 4), max_tokens=150, store=store)
    assert packed.stats.included == 1
    assert packed.stats.reduced == 1
    assert packed.stats.tokens <= 150
    assert packed.document.summary["next"] == f"agentout show fit-{ref}.json --records 4:4"


# -- the budget claim, on generated inputs --------------------------------------------

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]), max_size=30)
_SCALAR = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    _TEXT,
    st.sampled_from(["1", "true", "null", ""]),
)
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)
_RECORDS = st.lists(
    st.dictionaries(st.text(min_size=1, max_size=8), _VALUE, max_size=4), max_size=40
)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    rows=_RECORDS,
    jsonl=st.booleans(),
    budget=st.integers(1, 400),
    fmt=st.sampled_from(["records", "json", "toon", "text", "auto"]),
)
# the reference takes the full envelope past 36 tokens, and the leaner one, without it,
# shows both records whole: nothing may be kept
@example(rows=[{}, {}], jsonl=False, budget=36, fmt="records")
def test_fit_never_passes_the_budget_and_keeps_the_input_byte_for_byte(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[dict[str, Any]],
    jsonl: bool,
    budget: int,
    fmt: str,
) -> None:
    from agentout.redact import default_redactor

    if jsonl:
        data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    else:
        data = json.dumps(rows, ensure_ascii=False, indent=1)
    if not data.strip():
        return  # empty input is refused, not fitted
    raw = data.encode("utf-8")
    store = SpillStore(tmp_path_factory.mktemp("spill"))
    packed = fit(io.BytesIO(raw), max_tokens=budget, format=fmt, spill=True, store=store)
    stats = packed.stats
    assert stats.tokens <= budget or (stats.over_budget and stats.included == 0)
    files = store.files()
    if not stats.truncated:  # every record shown whole
        assert files == []
        assert "ref" not in packed.document.header
        return
    [kept] = files
    if "ref" in packed.document.header:  # a budget too small for it leaves the reference out
        assert kept.path.name.split("-")[1].startswith(packed.document.header["ref"])
    else:
        assert stats.lean
    expected, _ = default_redactor().redact_bytes(raw)  # secrets hidden, nothing else changed
    assert kept.path.read_bytes() == expected
    if expected == raw:  # what a page reads back is what fit read
        again = page_records(kept.path.name, max_tokens=None, store=store)
        assert again.stats.total == stats.total


def test_header_keys_of_the_input_never_pass_for_the_reference(
    store: SpillStore, tmp_path: Path
) -> None:
    source = tmp_path / "top.json"
    source.write_text(json.dumps({"ref": "mine", "items": [{"i": i} for i in range(300)]}))
    head = header_of(agentout("fit", str(source), "--max-tokens", "150").stdout)
    assert head["top.ref"] == "mine"
    assert re.fullmatch(r"[0-9a-f]{16}", head["ref"])


ROWS = [{"id": str(i), "name": f"item {i}", "on": "yes"} for i in range(30)]
KINDS = {
    "rows.json": json.dumps(ROWS),
    "rows.jsonl": "".join(json.dumps(r) + "\n" for r in ROWS),
    "rows.yaml": "".join(f"- id: '{r['id']}'\n  name: {r['name']}\n  on: yes\n" for r in ROWS),
    "rows.toml": "".join(
        f"[[rows]]\nid = '{r['id']}'\nname = '{r['name']}'\non = 'yes'\n" for r in ROWS
    ),
    "rows.csv": "id,name,on\n" + "".join(f"{r['id']},{r['name']},yes\n" for r in ROWS),
    "rows.tsv": "id\tname\ton\n" + "".join(f"{r['id']}\t{r['name']}\tyes\n" for r in ROWS),
    "rows.txt": "".join(f"line {i}\n" for i in range(30)),
}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_show_records_reads_the_kept_file_as_fit_read_it(
    store: SpillStore, tmp_path: Path, name: str
) -> None:
    from agentout.read.data import read_data

    source = tmp_path / name
    source.write_text(KINDS[name])
    packed = fit(str(source), max_tokens=200, spill=True)
    ref = packed.document.header["ref"]
    paged = page_records(ref, max_tokens=None, store=store)
    expected = read_data(str(source))
    assert [r.fullest for r, _ in paged.document.records] == [r.fullest for r in expected.records]
    assert paged.stats.total == len(expected.records) == 30


def test_a_kept_jsonl_file_shows_as_its_lines_in_raw(store: SpillStore) -> None:
    events = ROOT / "examples" / "data" / "events.jsonl"
    ref = header_of(agentout("fit", str(events), "--max-tokens", "100").stdout)["ref"]
    done = agentout("show", ref, "--lines", "1:2", "--format", "raw")
    assert done.exit_code == 0, done.stderr
    assert done.stdout.splitlines()[:2] == events.read_text().splitlines()[:2]
