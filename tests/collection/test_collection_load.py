"""Loading collections: every kind of file, directories and globs, and every kind of bad file."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import pytest

from agentout.errors import InputError
from agentout.read.data import MAX_DEPTH, data_records, read_data
from agentout.read.safe_yaml import MAX_ALIAS_NODES, load_documents
from agentout.sources.collection.load import MAX_LINE_BYTES, Item, LoadReport, load


def _load(*paths: Path | str) -> tuple[list[Item], LoadReport]:
    report = LoadReport()
    return list(load([str(p) for p in paths], report)), report


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# -- each kind of file -----------------------------------------------------------------


def test_json_array_gives_one_record_per_element(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.json", '[{"id": 1}, {"id": 2}, 3]')
    items, report = _load(path)
    assert [i.data for i in items] == [{"id": 1}, {"id": 2}, {"value": 3}]
    assert [i.source for i in items] == [f"{path}[0]", f"{path}[1]", f"{path}[2]"]
    assert (report.files, report.skipped) == (1, 0)


def test_jsonl_keeps_each_line_exactly_for_the_spill(tmp_path: Path) -> None:
    lines = ['{"b": 1,  "a": "é"}', "", '{"a":2}\r']
    path = _write(tmp_path / "a.jsonl", "\n".join(lines) + "\n")
    items, _ = _load(path)
    assert [i.data for i in items] == [{"b": 1, "a": "é"}, {"a": 2}]
    assert [i.source for i in items] == [f"{path}:1", f"{path}:3"]
    assert items[0].json_line() == '{"b": 1,  "a": "é"}\n'.encode()


def test_yaml_single_root_key_is_unwrapped(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.yaml", "threat_pattern:\n  id: X-1\n  severity: high\n")
    items, _ = _load(path)
    assert [i.data for i in items] == [{"id": "X-1", "severity": "high"}]
    assert items[0].source == str(path)


def test_single_key_holding_a_list_gives_its_elements(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.yml", "patterns:\n  - id: A\n  - id: B\n")
    items, _ = _load(path)
    assert [i.data["id"] for i in items] == ["A", "B"]


def test_single_key_holding_a_scalar_is_kept(tmp_path: Path) -> None:
    path = _write(tmp_path / "p.json", '{"id": "only"}')
    items, _ = _load(path)
    assert [i.data for i in items] == [{"id": "only"}]


def test_yaml_documents_are_records(tmp_path: Path) -> None:
    path = _write(tmp_path / "many.yaml", "id: A\n---\nid: B\n")
    items, _ = _load(path)
    assert [(i.data, i.source) for i in items] == [
        ({"id": "A"}, f"{path}[0]"),
        ({"id": "B"}, f"{path}[1]"),
    ]


def test_markdown_front_matter_and_body(tmp_path: Path) -> None:
    path = _write(tmp_path / "note.md", "---\ntitle: Hello\ntags: [a, b]\n---\n\n# Hello\nText.\n")
    items, _ = _load(path)
    assert items[0].data == {"title": "Hello", "tags": ["a", "b"], "body": "# Hello\nText."}


def test_markdown_without_front_matter_is_its_body(tmp_path: Path) -> None:
    path = _write(tmp_path / "plain.md", "Just text.\n")
    items, _ = _load(path)
    assert items[0].data == {"body": "Just text."}


def test_yaml_values_come_back_json_shaped(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "t.yaml",
        "when: 2024-01-02\non: yes\n2: two\nnan: .nan\nset: !!set {b, a}\n",
    )
    items, _ = _load(path)
    # YAML 1.2: "on" and "yes" are strings; .nan is a number JSON cannot hold: its text
    assert items[0].data == {"when": "2024-01-02", "on": "yes", "2": "two", "nan": ".nan",
                             "set": ["a", "b"]}  # fmt: skip
    json.dumps(items[0].data, allow_nan=False)  # nothing JSON cannot hold


# -- directories and globs --------------------------------------------------------------


def test_directory_walk_is_sorted_and_skips_hidden_and_other_files(tmp_path: Path) -> None:
    _write(tmp_path / "kb" / "b.yaml", "id: B\n")
    _write(tmp_path / "kb" / "a" / "z.json", '{"id": "AZ"}')
    _write(tmp_path / "kb" / "c.jsonl", '{"id": "C1"}\n{"id": "C2"}\n')
    _write(tmp_path / "kb" / ".hidden.yaml", "id: H\n")
    _write(tmp_path / "kb" / ".git" / "x.yaml", "id: G\n")
    _write(tmp_path / "kb" / "README.txt", "not a record")
    items, report = _load(tmp_path / "kb")
    assert [i.data["id"] for i in items] == ["AZ", "B", "C1", "C2"]
    assert (report.files, report.skipped, report.problems) == (3, 0, [])


def test_glob_matches_in_name_order(tmp_path: Path) -> None:
    for name in ("b", "a", "c"):
        _write(tmp_path / "d" / f"{name}.yaml", f"id: {name}\n")
    items, _ = _load(f"{tmp_path}/**/*.yaml")
    assert [i.data["id"] for i in items] == ["a", "b", "c"]


def test_example_kb_loads_whole(kb: Path) -> None:
    items, report = _load(kb)
    assert report.problems == []
    assert len(items) == report.files >= 12
    assert all({"id", "agent_summary", "mitigations"} <= set(i.data) for i in items)
    long = [p for p in kb.rglob("*.yaml") if len(p.read_text().splitlines()) >= 300]
    assert len(long) >= 2  # the agent budget is exercised by real, long records


# -- bad input --------------------------------------------------------------------------


def test_malformed_yaml_among_many_is_skipped_with_file_and_line(tmp_path: Path) -> None:
    _write(tmp_path / "kb" / "a.yaml", "id: A\n")
    _write(tmp_path / "kb" / "b.yaml", "id: B\nname: [unclosed\nseverity: high\n")
    _write(tmp_path / "kb" / "c.json", '{"id": "C",\n "x": }')
    _write(tmp_path / "kb" / "d.yaml", "id: D\n")
    items, report = _load(tmp_path / "kb")
    assert [i.data["id"] for i in items] == ["A", "D"]
    assert (report.files, report.skipped) == (2, 2)
    messages = [str(p) for p in report.problems]
    assert messages[0].startswith(f"{tmp_path / 'kb' / 'b.yaml'}:3:")
    assert "(YAML)" in messages[0]
    assert messages[1] == f"{tmp_path / 'kb' / 'c.json'}:2:7: expecting value (JSON)"


def test_bad_jsonl_line_is_skipped_and_the_rest_read(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", '{"id": 1}\n{"id": \n{"id": 3}\nNaN\n')
    items, report = _load(path)
    assert [i.data["id"] for i in items] == [1, 3]
    assert (report.files, report.skipped, report.bad_lines) == (1, 0, 2)
    assert [(p.path, p.line) for p in report.problems] == [(str(path), 2), (str(path), 4)]


def test_jsonl_of_only_bad_lines_is_a_skipped_file(tmp_path: Path) -> None:
    path = _write(tmp_path / "a.jsonl", "nope\n{\n")
    items, report = _load(path)
    assert items == []
    assert (report.files, report.skipped, report.bad_lines) == (0, 1, 2)


def test_overlong_jsonl_line_is_skipped_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("wb") as handle:
        handle.write(b'{"id": 1}\n{"pad": "')
        handle.write(b"x" * (MAX_LINE_BYTES + 10))
        handle.write(b'"}\n{"id": 3}\n')
    items, report = _load(path)
    assert [i.data["id"] for i in items] == [1, 3]
    assert report.problems[0].line == 2
    assert "longer than" in report.problems[0].message


@pytest.mark.parametrize("name", ["e.json", "e.jsonl", "e.yaml", "e.md"])
@pytest.mark.parametrize("content", ["", "\n  \n"])
def test_empty_files_are_skipped_and_said(tmp_path: Path, name: str, content: str) -> None:
    path = _write(tmp_path / name, content)
    items, report = _load(path)
    assert items == []
    assert report.skipped == 1
    assert str(report.problems[0]) == f"{path}: empty file: no records"


def test_yaml_of_only_comments_is_skipped(tmp_path: Path) -> None:
    path = _write(tmp_path / "c.yaml", "# nothing here\n")
    _, report = _load(path)
    assert report.skipped == 1
    assert "no YAML data" in report.problems[0].message


@pytest.mark.parametrize("name", ["bin.json", "bin.jsonl", "bin.yaml"])
def test_binary_files_are_skipped(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path / name, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)
    items, report = _load(path)
    assert items == []
    assert report.skipped == 1
    assert "binary file" in report.problems[0].message


def test_invalid_utf8_names_the_line_and_the_byte(tmp_path: Path) -> None:
    path = _write(tmp_path / "latin1.yaml", "id: A\nname: caf\xe9\n".encode("latin-1"))
    _, report = _load(path)
    assert str(report.problems[0]) == (
        f"{path}:2: invalid UTF-8 at byte 15 (0xe9); agentout reads UTF-8 text"
    )


def test_directory_with_no_matching_files(tmp_path: Path) -> None:
    _write(tmp_path / "d" / "notes.txt", "hello")
    items, report = _load(tmp_path / "d")
    assert items == []
    assert report.files == 0
    assert "no files to read in this directory" in str(report.problems[0])


def test_one_bad_value_skips_its_file_and_names_its_line(tmp_path: Path) -> None:
    _write(tmp_path / "kb" / "a.yaml", "id: A\nbig: " + "9" * 5000 + "\n")
    _write(tmp_path / "kb" / "b.yaml", "id: B\nn: !!int twelve\n")
    _write(tmp_path / "kb" / "c.md", "---\nid: C\nwhen: 2024-13-45\n---\nBody.\n")
    _write(tmp_path / "kb" / "d.toml", "id = 'D'\nx = [1,\n")
    _write(tmp_path / "kb" / "e.csv", "id,n\nE,1\n")
    items, report = _load(tmp_path / "kb")
    assert [i.data["id"] for i in items] == ["A", "C", "E"]
    assert items[0].data["big"] == "9" * 5000  # kept as its text: JSON holds no such number
    assert items[1].data["when"] == "2024-13-45"  # a date stays its text
    assert items[2].data == {"id": "E", "n": "1"}
    assert [
        str(p).removeprefix(str(tmp_path / "kb") + "/").split(":")[:2] for p in report.problems
    ] == [
        ["b.yaml", "2"],
        ["d.toml", "3"],
    ]
    assert report.skipped == 2


def test_missing_file_unknown_kind_and_empty_glob(tmp_path: Path) -> None:
    _write(tmp_path / "data.xls", "a,b\n")
    _, report = _load(tmp_path / "nope.json", tmp_path / "data.xls", f"{tmp_path}/*.yaml")
    assert [p.message.split(" (")[0] for p in report.problems] == [
        "no such file",
        "unknown kind of file",
        "no files match this pattern",
    ]
    assert report.skipped == 2


def test_nan_in_json_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path / "n.json", '{"x": NaN}')
    _, report = _load(path)
    assert "NaN is not valid JSON" in report.problems[0].message


# -- the same rules as fit ------------------------------------------------------------

# Lines fit refuses (sources/_stream.py): each is refused here too, in the same words
# and at the same place, and the lines around it are still read.
REFUSED_LINES = [
    '{"a": x}',
    '{"a": "tab\there"}',
    "[NaN]",
    '{"a": "NaN", "b": [1, -Infinity]}',
    '{"a": "Infinity", "b": Infinity}',
    "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1),
    '{"a":' * 100_000 + "1" + "}" * 100_000,  # past Python's own recursion limit
]


@pytest.mark.parametrize("line", REFUSED_LINES, ids=lambda line: line[:24])
def test_a_jsonl_line_is_refused_as_fit_refuses_it(tmp_path: Path, line: str) -> None:
    text = '{"id": 1}\n' + line + '\n{"id": 3}\n'
    path = _write(tmp_path / "in.jsonl", text)
    items, report = _load(path)
    assert [i.data for i in items] == [{"id": 1}, {"id": 3}]
    assert report.bad_lines == 1
    with pytest.raises(InputError) as fit:
        data_records([text], str(path), input_format="jsonl")
    (problem,) = report.problems
    assert str(problem) == str(fit.value)
    assert problem.line == 2


def _nested(depth: int) -> dict[str, object]:
    """A record whose objects are nested ``depth`` levels deep, itself level 1."""
    record: dict[str, object] = {"id": 1}
    for level in range(2, depth + 1):
        record = {"id": level, "x": record}
    return record


def test_depth_is_capped_at_fits_limit_in_every_kind_of_file(tmp_path: Path) -> None:
    limit = f"nested deeper than {MAX_DEPTH} levels"
    ok, deep = json.dumps(_nested(MAX_DEPTH)), json.dumps(_nested(MAX_DEPTH + 1))
    jsonl = _write(tmp_path / "d.jsonl", f"{ok}\n{deep}\n")
    items, report = _load(jsonl)
    assert [i.data for i in items] == [_nested(MAX_DEPTH)]
    assert [str(p) for p in report.problems] == [f"{jsonl}:2:1: JSON {limit}"]

    kb = tmp_path / "kb"
    _write(kb / "ok.json", ok)
    _write(kb / "deep.json", "\n  " + deep)
    # a YAML document's own mapping is a level: 1 + the nested record
    _write(kb / "ok.yaml", "name: ok\nx: " + json.dumps(_nested(MAX_DEPTH - 1)) + "\n")
    _write(kb / "deep.yaml", "name: deep\nx: " + ok + "\n")  # flow style, as JSON
    _write(kb / "deep.md", "---\nname: deep\nx: " + ok + "\n---\nText.\n")
    aliased = "".join(f"a{i}: &a{i} [*a{i - 1}]\n" for i in range(1, MAX_DEPTH))
    _write(kb / "aliased.yaml", "a0: &a0 [1]\n" + aliased)  # deep only once expanded
    items, report = _load(kb)
    assert [i.source for i in items] == [str(kb / "ok.json"), str(kb / "ok.yaml")]
    assert [str(p) for p in report.problems] == [
        f"{kb / 'aliased.yaml'}:1: YAML {limit}",
        f"{kb / 'deep.json'}:2:3: JSON {limit}",
        f"{kb / 'deep.md'}:3: YAML {limit}",
        f"{kb / 'deep.yaml'}:2: YAML {limit}",
    ]


def test_broken_yaml_with_many_brackets_is_reported_at_its_line() -> None:
    text = "".join(f"k{i}: [1]\n" for i in range(100)) + "bad: ]\n"  # the depth check parses
    with pytest.raises(InputError, match=r"^b\.yaml:101:\d+: .* \(YAML\)$"):
        list(load_documents(text, "b.yaml"))


def test_yaml_nested_past_what_libyaml_can_compose_is_refused_not_a_crash(
    tmp_path: Path,
) -> None:
    path = _write(tmp_path / "deep.yaml", "x:\n  " + "[" * 100_000 + "]" * 100_000 + "\n")
    code = (
        "import sys\n"
        "from agentout.sources.collection.load import LoadReport, load\n"
        "report = LoadReport()\n"
        "print(list(load([sys.argv[1]], report)), [str(p) for p in report.problems])\n"
    )
    # a subprocess: libyaml's composer recursing 100,000 levels deep kills the process
    done = subprocess.run(
        [sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"[] ['{path}:2: YAML nested deeper than {MAX_DEPTH} levels']\n"


def test_invalid_utf8_is_worded_as_fit_words_it(tmp_path: Path) -> None:
    data = b'{"id": 1}\n{"name": "caf\xe9"}\n{"id": 3}\n'
    path = _write(tmp_path / "l.jsonl", data)
    items, report = _load(path)
    assert [i.data for i in items] == [{"id": 1}, {"id": 3}]
    with pytest.raises(InputError) as fit:
        read_data(io.BytesIO(data), name=str(path), input_format="jsonl")
    (problem,) = report.problems
    assert problem.message == fit.value.message  # fit names no line: it reads no further
    assert (problem.path, problem.line) == (str(path), 2)


# -- safe YAML --------------------------------------------------------------------------

BILLION_LAUGHS = """\
lol: &lol "lol"
a: &a [*lol, *lol, *lol, *lol, *lol, *lol, *lol, *lol, *lol, *lol]
b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]
c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]
d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]
e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]
f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]
g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]
h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]
i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]
"""


def test_billion_laughs_is_refused_fast_and_small(tmp_path: Path) -> None:
    path = _write(tmp_path / "kb" / "bomb.yaml", BILLION_LAUGHS)
    _write(tmp_path / "kb" / "ok.yaml", "id: fine\n")
    tracemalloc.start()
    start = time.perf_counter()
    items, report = _load(tmp_path / "kb")
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert [i.data for i in items] == [{"id": "fine"}]  # the other file is still answered
    assert report.skipped == 1
    assert str(report.problems[0]).startswith(f"{path}:1: YAML aliases expand to more than")
    assert "alias bomb" in report.problems[0].message
    assert elapsed < 2.0
    assert peak < 5_000_000


def test_aliases_within_the_limit_are_fine() -> None:
    text = "base: &b {x: 1, y: [1, 2, 3]}\none: *b\ntwo: {<<: *b, z: 3}\n"
    (doc,) = load_documents(text, "ok.yaml")
    assert doc["one"] == {"x": 1, "y": [1, 2, 3]}
    assert doc["two"] == {"x": 1, "y": [1, 2, 3], "z": 3}


def test_alias_limit_is_on_expansion_not_on_size() -> None:
    # 200k distinct nodes and no aliases: big, and fine.
    rows = "".join(f"- {i}\n" for i in range(MAX_ALIAS_NODES * 2))
    (doc,) = load_documents(rows, "big.yaml")
    assert len(doc) == MAX_ALIAS_NODES * 2


def test_recursive_alias_is_refused() -> None:
    with pytest.raises(InputError, match="refers to a node that contains it"):
        list(load_documents("a: &x [1, *x]\n", "r.yaml"))


def test_python_tags_are_not_constructed() -> None:
    with pytest.raises(InputError, match=r"r\.yaml:1:\d+: could not determine a constructor"):
        list(load_documents("!!python/object/apply:os.system ['echo hi']\n", "r.yaml"))


def test_streaming_jsonl_memory_stays_flat(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    row = {"id": 0, "level": "info", "message": "x" * 200, "tags": ["a", "b"]}
    with path.open("w") as handle:
        for i in range(20_000):
            row["id"] = i
            handle.write(json.dumps(row) + "\n")
    size = path.stat().st_size
    report = LoadReport()
    tracemalloc.start()
    count = sum(1 for _ in load([str(path)], report))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert count == 20_000
    assert peak < size / 20  # a few lines at a time, never the file
