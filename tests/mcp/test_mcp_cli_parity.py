"""Each MCP tool shows what its CLI twin prints at the same budget, over generated inputs.

Both run in one project over one spill store, so a file either keeps has the same name in
both. The text of a tool's result is the CLI's; the link to a kept file is added only
where the budget leaves room beside it (the text names the file anyway). Where a tool
keeps a complete result the CLI does not (notes_context over its budget or its inline
threshold), its page names it with one header field more, ``ref=NAME``, and is otherwise
the CLI's page at the budget less what that field costs.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from mcp_support import call, make_server, texts

from agentout.cli.main import cli
from agentout.formats.records import parse
from agentout.store.spill import SpillStore
from agentout.tokens import count, get_tokenizer

REPO = Path(__file__).parents[2]
PARITY = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SLOW = settings(PARITY, max_examples=6)  # each example runs a test suite twice
Budget = st.integers(200, 3000)  # an MCP call's budget is at least 200


@pytest.fixture
def here(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The CLI runs where the server's root is, as an agent in that project would."""
    monkeypatch.chdir(project)
    return project


def _invoke(*args: str, stdin: str | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args), input=stdin)
    return result.exit_code, result.output + result.stderr


def _cli(*args: str, stdin: str | None = None) -> str:
    status, out = _invoke(*args, stdin=stdin)
    assert status in (0, 1), out
    return out


# -- count_tokens = agentout count ----------------------------------------------------------


@PARITY
@given(
    text=st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=400),
    tokenizer=st.sampled_from(["o200k_base", "cl100k_base", "chars4", "gpt-4o"]),
    by_path=st.booleans(),
)
def test_count_tokens_counts_as_count_does(
    here: Path, store: SpillStore, text: str, tokenizer: str, by_path: bool
) -> None:
    server = make_server(here, store)
    if by_path:
        (here / "count.txt").write_bytes(text.encode("utf-8"))
        mcp = call(server, "count_tokens", path="count.txt", tokenizer=tokenizer)
        status, said = _invoke("count", "--tokenizer", tokenizer, "count.txt")
        if status == 2:  # a file that is not text (a NUL byte): refused alike
            assert mcp.is_error
            assert said.split("agentout: count.txt: ")[-1].strip() in texts(mcp)
            return
        said = said.split()[0]
    else:
        # a text argument is a JSON string, which may hold U+0000 as any other character;
        # what `count` reads from stdin is bytes, where a NUL byte means binary data
        assume("\x00" not in text)
        mcp = call(server, "count_tokens", text=text, tokenizer=tokenizer)
        said = _cli("count", "--tokenizer", tokenizer, stdin=text).strip()
    assert not mcp.is_error, texts(mcp)
    assert mcp.structured_content is not None
    assert mcp.structured_content["tokens"] == int(said)
    assert texts(mcp).startswith(f"{said} tokens ({get_tokenizer(tokenizer).name})")


# -- query_records = agentout records -------------------------------------------------------

_WORDS = ["disk", "full", "timeout", "retry", "cache", "miss", "auth", "token", "db", "slow"]
Row = st.fixed_dictionaries(
    {"id": st.integers(0, 10**6)},
    optional={
        "level": st.sampled_from(["info", "warn", "error"]),
        "msg": st.lists(st.sampled_from(_WORDS), max_size=12).map(" ".join),
        "host": st.sampled_from(["web-1", "web-2", "db-1"]),
        "tags": st.lists(st.sampled_from(_WORDS), max_size=4),
        "ms": st.integers(0, 10**5),
        "note": st.text(max_size=60),
    },
)


@PARITY
@given(
    rows=st.lists(Row, min_size=1, max_size=60),
    budget=Budget,
    mode=st.sampled_from(["agent", "verbose"]),
    query=st.none() | st.sampled_from(_WORDS),
    where=st.none() | st.sampled_from(["level=error", "host=web-1"]),
)
def test_query_records_shows_what_records_prints(
    here: Path,
    store: SpillStore,
    rows: list[dict[str, Any]],
    budget: int,
    mode: str,
    query: str | None,
    where: str | None,
) -> None:
    (here / "rows.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    asked: dict[str, Any] = {"mode": mode, "max_tokens": budget}
    args = ["records", "rows.jsonl", "--mode", mode, "--max-tokens", str(budget)]
    if query:
        asked["query"], args = query, [*args, "--query", query]
    if where:
        asked["where"], args = [where], [*args, "--where", where]
    mcp = call(make_server(here, store), "query_records", paths=["rows.jsonl"], **asked)
    printed = _cli(*args)
    if "no records" in printed or mcp.is_error:  # nothing matched: both say so
        assert mcp.is_error == ("H agentout" not in printed)
        return
    assert texts(mcp) == printed


# -- notes_context = agentout notes context -------------------------------------------------

_NOTE_IDS = ["budgets", "exact-counts", "start-here", "sources/qipu", "sources/topa"]
_QUERIES = ["token budget", "exact count", "delivery", "tokenizer", "notes", "spill"]


def _without_ref(text: str) -> tuple[str, str | None]:
    """The page with its header's ``ref=NAME`` taken out, and that field ("" if none)."""
    first, _, rest = text.partition("\n")
    found = re.search(r" ref=\S+", first)
    if found is None:
        return text, None
    return first[: found.start()] + first[found.end() :] + "\n" + rest, found.group()


def _records(text: str) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """The header's fields but ``tokens`` (which counts the header itself), and the rest."""
    rows = parse(text)
    head = {k: v for k, v in rows[0][1].items() if k != "tokens"}
    return head, rows[1:]


@PARITY
@given(
    notes=st.lists(st.sampled_from(_NOTE_IDS), max_size=3, unique=True),
    query=st.none() | st.sampled_from(_QUERIES),
    limit=st.integers(1, 10),
    with_body=st.booleans(),
    with_edges=st.booleans(),
    budget=Budget,
    threshold=st.sampled_from([None, 256, 10**6]),
)
def test_notes_context_shows_what_notes_context_prints(
    here: Path,
    store: SpillStore,
    notes: list[str],
    query: str | None,
    limit: int,
    with_body: bool,
    with_edges: bool,
    budget: int,
    threshold: int | None,
) -> None:
    assume(notes or query)
    asked: dict[str, Any] = {"notes": notes, "limit": limit, "max_tokens": budget}
    args = ["notes", "context", "vault", "--limit", str(limit), "--no-cache"]
    args += [arg for name in notes for arg in ("--note", name)]
    if query:
        asked["query"], args = query, [*args, "--query", query]
    for flag, on in (("with_body", with_body), ("with_edges", with_edges)):
        if on:
            asked[flag], args = True, [*args, "--" + flag.replace("_", "-")]
    if threshold is not None:
        asked["inline_threshold_bytes"] = threshold
    mcp = call(make_server(here, store), "notes_context", directory="vault", **asked)
    assert not mcp.is_error, texts(mcp)
    page, ref = _without_ref(texts(mcp))
    if ref is None:  # shown whole within the threshold: the CLI's page itself
        assert page == _cli(*args, "--max-tokens", str(budget))
        return
    # the complete page kept, and named: the CLI's page at the budget less that name
    room = budget - (count(texts(mcp)) - count(page))
    assert _records(page) == _records(_cli(*args, "--max-tokens", str(room)))
    assert (store.root / ref.removeprefix(" ref=")).is_file()


# -- read_output = agentout show ------------------------------------------------------------


@PARITY
@given(
    lines=st.lists(
        st.lists(st.sampled_from([*_WORDS, "ERROR", "a" * 300]), max_size=10).map(" ".join),
        min_size=1,
        max_size=300,
    ),
    span=st.none() | st.tuples(st.integers(1, 320), st.integers(0, 80)),
    grep=st.none() | st.sampled_from(["ERROR", "disk|db", "^$"]),
    budget=Budget,
)
def test_read_output_shows_what_show_prints(
    here: Path,
    store: SpillStore,
    lines: list[str],
    span: tuple[int, int] | None,
    grep: str | None,
    budget: int,
) -> None:
    with store.open(kind="run", suffix=".log", by_content=True) as out:
        out.write("".join(line + "\n" for line in lines))
        kept = out.commit()
    asked: dict[str, Any] = {"max_tokens": budget}
    args = ["show", kept.ref, "--max-tokens", str(budget)]
    if span is not None:
        range_ = f"{span[0]}:{span[0] + span[1]}"
        asked["lines"], args = range_, [*args, "--lines", range_]
    if grep is not None:
        asked["grep"], args = grep, [*args, "--grep", grep]
    mcp = call(make_server(here, store), "read_output", ref=kept.ref, **asked)
    assert texts(mcp) == _cli(*args)


@PARITY
@given(rows=st.lists(Row, min_size=1, max_size=80), first=st.integers(1, 90), budget=Budget)
def test_read_output_by_records_shows_what_show_records_prints(
    here: Path, store: SpillStore, rows: list[dict[str, Any]], first: int, budget: int
) -> None:
    with store.open(kind="records", suffix=".jsonl", by_content=True) as out:
        out.write("".join(json.dumps(row) + "\n" for row in rows))
        kept = out.commit()
    mcp = call(
        make_server(here, store),
        "read_output",
        ref=kept.ref,
        records=f"{first}:",
        max_tokens=budget,
    )
    printed = _cli("show", kept.ref, "--records", f"{first}:", "--max-tokens", str(budget))
    assert texts(mcp) == printed


# -- run_tests = agentout test --------------------------------------------------------------


def _as_run(text: str) -> tuple[dict[str, Any], list[tuple[str, dict[str, Any]]]]:
    """A report but what differs between two runs of one suite: the time it took, and the
    name of the full report (which holds the run's own output)."""
    head, rows = _records(text)
    out = []
    for kind, fields in rows:
        fields = {
            k: v for k, v in fields.items() if (kind, k) not in (("S", "time"), ("F", "full"))
        }
        out.append((kind, fields))
    return head, out


@SLOW
@given(
    seed=st.integers(0, 10**6),
    budget=st.integers(200, 5000),
    focus=st.sampled_from(["summary", "critical", "first-failure", "failures", "debug"]),
)
def test_run_tests_shows_what_test_prints(
    here: Path, store: SpillStore, seed: int, budget: int, focus: str
) -> None:
    from tests.testing.test_counts import generated_suite

    suite = here / f"suite_{seed}"
    suite.mkdir(exist_ok=True)
    for name, source in generated_suite(seed).items():
        (suite / f"{name}.py").write_text(source, encoding="utf-8")
    files = sorted(p.relative_to(here).as_posix() for p in suite.glob("test_*.py"))
    mcp = call(make_server(here, store), "run_tests", tests=files, focus=focus, max_tokens=budget)
    fast = ["-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
    status, printed = _invoke(
        "test", "--focus", focus, "--max-tokens", str(budget), "--", *fast, *files
    )
    assert mcp.meta is not None
    assert mcp.meta["agentout"]["exit"] == status  # pytest's own status, through both
    # within a few tokens of the budget, the run's own time= (its digits) decides what fits
    if max(count(printed), count(texts(mcp))) < budget - 4:
        assert _as_run(texts(mcp)) == _as_run(printed)
    else:
        assert _as_run(texts(mcp))[1][:2] == _as_run(printed)[1][:2]  # the S and first lines


# -- run_command = agentout run --------------------------------------------------------------


def _log(seed: int, size: int) -> list[str]:
    """``size`` lines of a command's output: words, and now and then an error to keep."""
    rng = random.Random(seed)
    return [
        f"ERROR {rng.getrandbits(32):x}: disk full at /var/{rng.randrange(977)}"
        if rng.random() < 0.2
        else " ".join(rng.choices(_WORDS, k=rng.randint(1, 8)))
        for _ in range(size)
    ]


@PARITY
@given(
    seed=st.integers(0, 2**32),
    size=st.integers(1, 3000),
    budget=Budget,
    threshold=st.sampled_from([8192, 30_000]),  # the server's default, run's default
)
@example(seed=0, size=294, budget=2320, threshold=8192)  # 8,194 bytes: over one, not the other
def test_run_command_shows_what_run_prints(
    here: Path, store: SpillStore, seed: int, size: int, budget: int, threshold: int
) -> None:
    (here / "lines.txt").write_text("".join(line + "\n" for line in _log(seed, size)))
    command = ["cat", "lines.txt"]  # a program the server allows, on a file under its root
    server = make_server(here, store, allow="cat")
    mcp = call(
        server,
        "run_command",
        command=command,
        max_tokens=budget,
        inline_threshold_bytes=threshold,
    )
    printed = _cli(
        "run", "--max-tokens", str(budget), "--inline-threshold", str(threshold), "--", *command
    )
    assert texts(mcp) == printed
