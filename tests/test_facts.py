"""agentout.reducers.facts: whether an output keeps the values an agent needs, block by block."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentout.errors import InputError
from agentout.reducers.facts import Fact, dumps, extract, kept, loads, lost, normalise

RUFF = Fact("ruff", ("src/a.py", "12", "5", "E501"))


@pytest.mark.parametrize(
    "output",
    [
        "src/a.py:12:5: E501 Line too long",
        "E501 Line too long\n  --> src/a.py:12:5\n   |",
        "src/a.py\n  12:5 E501\n  30:1 F401",
        "noise\nsrc/a.py:12:5: E501 x\nmore noise",
        "\x1b[1msrc/a.py\x1b[0m:\x1b[36m12\x1b[0m:5: \x1b[31mE501\x1b[0m",
        b"src/a.py:12:5: E501 caf\xe9",
        "progress 10%\rsrc/a.py:12:5: E501\r\n",
        "src/a.py:12:5: E501 Line too long.",
    ],
)
def test_kept_when_one_block_holds_every_value(output: str | bytes) -> None:
    assert kept(RUFF, output)


@pytest.mark.parametrize(
    "output",
    [
        "src/a.py:112:5: E501",  # 12 inside 112
        "src/a.py:12.5: E501",  # 12 and 5 inside 12.5
        "src/a.py:12:5: E5011",
        "src/a.pyc:12:5: E501",
        "src/a.py.bak:12:5: E501",
        "src/a.py:12:5:\nE501 on a block of its own",
        "src/a.py:12:5\n\nE501",  # a blank line does not join two blocks
        "xsrc/a.py:12:5: E501",
        "v1.12 src/a.py 5 E501",
        "",
    ],
)
def test_not_kept(output: str) -> None:
    assert not kept(RUFF, output)


def test_indented_and_blank_lines_belong_to_the_block_above() -> None:
    fact = Fact("commit", ("abc1234", "Fix the parser"))
    assert kept(fact, "abc1234 2025-01-01\n\n    Fix the parser\n")
    assert not kept(fact, "abc1234 2025-01-01\nFix the parser\n")
    assert kept(Fact("lead", ("x", "y")), "  x\n  y\nz")  # indented before any block


def test_a_value_at_a_sentence_end_or_between_symbols_is_whole() -> None:
    assert kept(Fact("n", ("12",)), "line 12.")
    assert kept(Fact("n", ("12",)), "[12]")
    assert kept(Fact("w", ("-Wunused-variable",)), "x [-Wunused-variable]")
    assert not kept(Fact("n", ("12",)), "x12")
    assert not kept(Fact("n", ("12",)), "12_000")


def test_a_line_number_may_be_written_after_an_l() -> None:
    fact = Fact("mypy", ("scripts/sizes.py", "21", "return-value"))
    assert kept(fact, "scripts/sizes.py (10 errors)\n  L21: [return-value] Incompatible")
    assert kept(Fact("n", ("21",)), "see #L21")
    assert not kept(Fact("n", ("21",)), "XL21")  # the L is part of a longer token
    assert not kept(Fact("n", ("21",)), "L21x")
    assert not kept(Fact("name", ("x21",)), "Lx21")  # only numbers
    assert not kept(Fact("name", ("Lib",)), "LLib")


def test_a_commit_hash_is_kept_by_its_abbreviation() -> None:
    full = "3a11ff429b251ae8d132798d3e10f35c4253bf5d"
    fact = Fact("commit", (full, "No design-note wording"))
    assert kept(fact, f"{full}\n    No design-note wording")
    assert kept(fact, "3a11ff4 No design-note wording")
    assert kept(fact, "3a11ff429b25 No design-note wording")
    assert not kept(fact, "3a11ff No design-note wording")  # under 7 digits
    assert not kept(fact, "3a11ff5 No design-note wording")
    assert not kept(fact, f"{full}0 No design-note wording")  # a longer token
    assert not kept(Fact("short", ("3a11ff4",)), full)  # only a full hash abbreviates


def test_lost_keeps_the_order_given() -> None:
    facts = [Fact("a", ("x",)), Fact("b", ("y",)), Fact("c", ("z",)), Fact("d", ("x", "z"))]
    assert lost(facts, "z\nx") == [facts[1], facts[3]]
    assert lost([], "anything") == []


def test_extract_takes_the_groups_of_every_match_once() -> None:
    raw = "a.py:1:2: E1 x\nb.py:3:4: W2 y\na.py:1:2: E1 x\n"
    facts = extract(r"^(\S+?):(\d+):(\d+): ([A-Z]+\d+)", raw, "lint")
    assert facts == [Fact("lint", ("a.py", "1", "2", "E1")), Fact("lint", ("b.py", "3", "4", "W2"))]
    assert all(kept(fact, raw) for fact in facts)
    assert extract(re.compile(r"E\d"), raw) == [Fact("E\\d", ("E1",))]
    optional = extract(r"^([a-z]+):(\d+)(?::(\d+))?$", "a:1\nb:2:3", "loc")
    assert optional == [Fact("loc", ("a", "1")), Fact("loc", ("b", "2", "3"))]


def test_extract_reads_the_text_kept_reads() -> None:
    assert extract(r"^error: (.+)$", "\x1b[31merror: boom\x1b[0m\r\n") == [
        Fact("^error: (.+)$", ("boom",))
    ]


@pytest.mark.parametrize(
    "values",
    [(), ("",), ("a\nb",), ("a\rb",), ("\x1b[0m",), ["a"]],
)
def test_a_fact_refuses_values_it_could_never_match(values: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match="fact"):
        Fact("x", values)


def test_normalise_removes_colour_and_carriage_returns() -> None:
    assert normalise(b"\x1b[1;31mred\x1b[0m\r\n50%\r100%\n\xff") == "red\n50%\n100%\n\ufffd"
    assert normalise("\x1b]0;title\x07text") == "text"


def test_dumps_and_loads_round_trip() -> None:
    facts = [RUFF, Fact("subject", ('Café ✓ — "quoted"',))]
    text = dumps(facts)
    assert text.count("\n") == 4  # one fact a line
    assert loads(text) == facts
    assert dumps([]) == "[]\n"
    assert loads("[]") == []


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[", r"facts.json:1:2: Expecting value \(JSON\)"),
        ("{}", "facts.json: expected a JSON array"),
        ('[{"label": 1, "values": []}]', "facts.json: fact 1: expected"),
        ('[{"label": "a", "values": ["x"]}, 3]', "facts.json: fact 2: expected"),
        ('[{"label": "a", "values": []}]', "facts.json: fact 1: fact 'a' needs"),
        ('[{"label": "a", "values": [7]}]', "facts.json: fact 1: fact 'a': every value"),
    ],
)
def test_loads_names_what_is_wrong_and_where(text: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        loads(text, "facts.json")


# -- properties ---------------------------------------------------------------------------

# Printable text: no line breaks, no escape or control characters (a fact never holds them).
_CHARS = st.characters(blacklist_categories=("Cc", "Cs"))
VALUES = st.text(_CHARS, min_size=1, max_size=12)
LINES = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(VALUES, min_size=1, max_size=5),
    before=st.lists(LINES, max_size=5),
    after=st.lists(LINES, max_size=5),
    indent=st.sampled_from(["", "  ", "\t"]),
)
def test_a_fact_copied_into_one_line_is_kept(
    values: list[str], before: list[str], after: list[str], indent: str
) -> None:
    fact = Fact("f", tuple(values))
    line = indent + " ".join(values)
    output = "\n".join([*before, line, *after])
    assert kept(fact, output)
    assert kept(fact, output.encode("utf-8"))
    assert lost([fact], output) == []


_FIRST = st.text(_CHARS, min_size=1, max_size=30).filter(lambda s: not s[0].isspace())
_INDENTED = st.builds(lambda pad, s: pad + s, st.sampled_from([" ", "  ", "\t"]), st.text(_CHARS))
_MORE = st.lists(_INDENTED, max_size=3)
BLOCKS = st.lists(
    st.builds(lambda first, more: "\n".join([first, *more]), _FIRST, _MORE), max_size=8
)
TOKENS = st.text("abcxyz0123._:/ -", min_size=1, max_size=6).filter(lambda s: s.strip() == s)


@settings(max_examples=300, deadline=None)
@given(
    blocks=BLOCKS,
    facts=st.lists(st.lists(TOKENS, min_size=1, max_size=3), max_size=6),
    data=st.data(),
)
def test_reordering_blocks_never_changes_the_answer(
    blocks: list[str], facts: list[list[str]], data: st.DataObject
) -> None:
    # Values drawn from the blocks' own text, so that many facts are kept and many are not.
    words = [w for block in blocks for w in re.split(r"[\s:]+", block) if w]
    if words:
        facts += data.draw(st.lists(st.lists(st.sampled_from(words), min_size=1, max_size=3)))
    checked = [Fact("f", tuple(values)) for values in facts]
    shuffled = data.draw(st.permutations(blocks))
    first = [kept(fact, "\n".join(blocks)) for fact in checked]
    assert [kept(fact, "\n".join(shuffled)) for fact in checked] == first
    assert lost(checked, "\n".join(blocks)) == [
        f for f, k in zip(checked, first, strict=True) if not k
    ]


_TOKEN = st.text("abcdefghijklmnopqrstuvwxyz0123456789", min_size=3, max_size=8)
_FILLER = st.lists(st.text("ABCDEFGHIJ ,;:()[]", max_size=20), max_size=3)


@settings(max_examples=300, deadline=None)
@given(
    first=_TOKEN,
    second=_TOKEN,
    fill_a=_FILLER,
    fill_b=_FILLER,
    middle=st.lists(_FILLER, max_size=3),
    indent=st.sampled_from(["", " ", "\t"]),
)
def test_values_only_in_different_blocks_are_not_kept(
    first: str,
    second: str,
    fill_a: list[str],
    fill_b: list[str],
    middle: list[list[str]],
    indent: str,
) -> None:
    if first == second:
        return
    block_a = "\n".join([f"A {first}", *(indent + line for line in fill_a)])
    others = ["M" + "\n ".join(lines) for lines in middle]
    block_b = "\n".join([f"B {second}", *(indent + line for line in fill_b)])
    output = "\n".join([block_a, *others, block_b])
    assert kept(Fact("a", (first,)), output)
    assert kept(Fact("b", (second,)), output)
    assert not kept(Fact("ab", (first, second)), output)
    assert not kept(Fact("ba", (second, first)), output)


@settings(max_examples=200, deadline=None)
@given(facts=st.lists(st.builds(Fact, VALUES, st.lists(VALUES, min_size=1, max_size=4).map(tuple))))
def test_dumps_loads_round_trip_any_fact(facts: list[Fact]) -> None:
    assert loads(dumps(facts)) == facts
    assert dumps(loads(dumps(facts))) == dumps(facts)


@settings(max_examples=100, deadline=None)
@given(output=st.text(max_size=200), values=st.lists(VALUES, min_size=1, max_size=3))
def test_same_output_same_answer(output: str, values: list[str]) -> None:
    fact = Fact("f", tuple(values))
    assert kept(fact, output) == kept(fact, output)
    assert kept(fact, output) == (lost([fact], output) == [])


def test_a_test_report_keeps_a_file_for_the_records_under_its_p_line() -> None:
    report = (
        "H agentout=1 total=2\n"
        "S status=FAIL failed=2\n"
        "P file=tests/a.py failed=1\n"
        "R test=test_x L=12 type=AssertionError\n"
        "P file=tests/b.py failed=1\n"
        "R test=test_y L=3 type=KeyError\n"
        "F full=/tmp/x.txt\n"
    )
    assert kept(Fact("test", ("tests/a.py", "test_x", "12")), report)
    assert kept(Fact("test", ("tests/b.py", "test_y")), report)
    assert not kept(Fact("test", ("tests/a.py", "test_y")), report)
    assert not kept(Fact("test", ("tests/b.py", "/tmp/x.txt")), report)  # F is no R
    plain = report.removeprefix("H agentout=1 total=2\n")
    assert not kept(Fact("test", ("tests/a.py", "test_x")), plain)  # records format only
