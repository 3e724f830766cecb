"""One note: front matter, ids, titles, links of every kind, summaries, and bad files."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agentout.sources.notes import Link, NoteError, ParsedNote, parse_note


def note(text: str, path: str = "dir/note.md") -> ParsedNote:
    return parse_note(text.encode("utf-8"), path)


# -- front matter and ids -----------------------------------------------------------------


def test_front_matter_fields() -> None:
    parsed = note(
        "---\nid: qp-1\ntitle: Types of notes\ntype: permanent\ntags: [a, '#b', a]\n"
        "summary: |\n  Two lines\n  of summary.\n---\n# Heading\n\nBody.\n"
    )
    assert (parsed.id, parsed.title, parsed.type) == ("qp-1", "Types of notes", "permanent")
    assert parsed.tags == ("a", "b")  # '#' dropped, duplicates once
    assert parsed.summary == "Two lines of summary."
    assert parsed.id_line == 2


def test_without_front_matter_the_id_is_the_path_and_the_title_the_first_heading() -> None:
    parsed = note("Intro line.\n\n# The Title\n\n## Other\n", path="a/b/my note.md")
    assert parsed.id == "a/b/my note"
    assert parsed.title == "The Title"
    assert parsed.type == "note"
    assert parsed.id_line == 1


def test_title_falls_back_to_the_file_name() -> None:
    assert note("## Only a second-level heading\n", path="x/idea.markdown").title == "idea"


def test_numeric_id_and_string_tags_are_accepted() -> None:
    parsed = note("---\nid: 42\ntags: alpha, beta gamma\n---\n")
    assert parsed.id == "42"
    assert parsed.tags == ("alpha", "beta", "gamma")


def test_dates_are_text() -> None:
    parsed = note("---\nid: 2024-01-05\ntitle: 2024-01-05 12:30:00\ntags: [2024-01-05]\n---\n")
    assert (parsed.id, parsed.tags) == ("2024-01-05", ("2024-01-05",))
    assert parsed.title.startswith("2024-01-05 12:30:00")


def test_yaml_aliases_cannot_blow_up_a_message() -> None:
    laughs = "".join(f"l{i}: &l{i} [*l{i - 1}, *l{i - 1}, *l{i - 1}]\n" for i in range(1, 30))
    text = f"---\nl0: &l0 [x]\n{laughs}links: [{{to: a, type: *l29}}]\n---\n"
    with pytest.raises(NoteError, match=r"aliases expand to more than 100,000 extra nodes"):
        note(text)


@pytest.mark.parametrize(
    ("value", "line"),
    [("9" * 5000, 3), ("!!int abc", 3), ("!!timestamp 2024-13-45", None)],
)
def test_a_value_the_loader_refuses_is_a_note_error_on_its_line(
    value: str, line: int | None
) -> None:
    text = f"---\ntitle: T\nn: {value}\n---\nBody.\n"
    if line is None:  # a date stays the text it was written as: nothing to refuse
        assert note(text).title == "T"
        return
    if value.isdigit():  # a number JSON cannot hold is kept as its text
        assert note(text).title == "T"
        return
    with pytest.raises(NoteError) as info:
        note(text)
    assert info.value.line == line


def test_crlf_front_matter_and_bom() -> None:
    parsed = parse_note(b"\xef\xbb\xbf---\r\nid: x\r\ntitle: T\r\n---\r\nBody.\r\n", "n.md")
    assert (parsed.id, parsed.title, parsed.summary) == ("x", "T", "Body.")


def test_a_thematic_break_later_is_not_front_matter() -> None:
    parsed = note("Text first.\n\n---\nid: nope\n---\n")
    assert parsed.id == "dir/note"


# -- links ----------------------------------------------------------------------------------


def test_wiki_links_with_alias_and_heading() -> None:
    parsed = note(
        "See [[alpha]], [[beta|the beta]], [[gamma#Part two]] and [[delta#Intro|intro]].\n"
        "Next line: [[ epsilon ]].\n"
    )
    assert [(k.target, k.heading, k.via, k.type, k.line) for k in parsed.links] == [
        ("alpha", "", "wiki", "related", 1),
        ("beta", "", "wiki", "related", 1),
        ("gamma", "Part two", "wiki", "related", 1),
        ("delta", "Intro", "wiki", "related", 1),
        ("epsilon", "", "wiki", "related", 2),
    ]


def test_wiki_links_in_code_are_text() -> None:
    parsed = note("Inline `[[not-a-link]]`.\n\n```\n[[nor-this]]\n```\n\n    [[indented]]\n")
    assert parsed.links == ()


def test_a_heading_of_the_same_note_and_unclosed_brackets_are_not_links() -> None:
    assert note("[[#Heading]] and [[unclosed and [[]] and [[a\nb]]\n").links == ()


@pytest.mark.parametrize(
    ("text", "targets"),
    [
        ("[[" * 5000, []),
        ("[[" * 5000 + "]]", []),
        ("[[a]] " + "[[" * 5000 + " [[b]]", ["a", "b"]),
        ("[[a]b]] [[c]]", ["a]b", "c"]),
        ("[[" * 3 + "x]]", ["x"]),
        ("[x](y.md) [[" * 2000, ["dir/y.md"] * 2000),
        ("[" * 5000 + "[[z]]", ["z"]),
    ],
    ids=["open-only", "one-close-at-end", "around", "inner-bracket", "nested", "many", "after"],
)
def test_runs_of_brackets_are_text_and_links_around_them_are_found(
    text: str, targets: list[str]
) -> None:
    """A run of "[" with no "]" after it is text: said at once, never searched from each
    "[" (the search for "]]" from every "[[" made "[[" x 64,000 take 16 s)."""
    assert [link.target for link in note(text).links] == targets


def test_the_search_for_a_wiki_link_end_reads_a_paragraph_about_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Linear, counted rather than timed: the characters the wiki-link rule's searches
    pass over, for a paragraph of 4,000 "[[a " and a closing "]]", stay a small multiple of
    the paragraph's length (they were quadratic: half the length squared)."""
    from agentout.sources.notes import parse

    scanned = 0
    real = parse._WIKI_END

    class Counting:
        def search(self, text: str, pos: int) -> object:
            nonlocal scanned
            found = real.search(text, pos)
            scanned += (found.end() if found else len(text)) - pos
            return found

    monkeypatch.setattr(parse, "_WIKI_END", Counting())
    text = "x " + "[[a " * 4000 + "]]"
    assert [link.target for link in note(text).links] == ["a"], "only the last is closed"
    assert 0 < scanned <= 4 * len(text)


def test_markdown_links_to_notes_resolve_against_the_note_folder() -> None:
    parsed = note(
        "[a](other.md) [b](../up.md#sec) [c](<sp ace.md>) [d](sub/no-suffix) [e](/root.md)\n"
        "[web](https://example.com/x.md) [mail](mailto:a@b.c) [pic](img.png) [self](#top)\n"
        "![image](diagram.md)\n",
        path="dir/note.md",
    )
    assert [(k.target, k.heading, k.via) for k in parsed.links] == [
        ("dir/other.md", "", "markdown"),
        ("up.md", "sec", "markdown"),
        ("dir/sp ace.md", "", "markdown"),
        ("dir/sub/no-suffix", "", "markdown"),
        ("root.md", "", "markdown"),
    ]


def test_typed_front_matter_links() -> None:
    parsed = note(
        "---\nid: a\nlinks:\n  - {to: b, type: supports}\n  - c\n  - {to: d}\n---\nText.\n"
    )
    assert parsed.links == (
        Link("b", "supports", "typed", 3),
        Link("c", "related", "typed", 3),
        Link("d", "related", "typed", 3),
    )


def test_link_lines_count_the_front_matter() -> None:
    parsed = note("---\nid: a\n---\n\nFirst [[x]]\nsecond\nthird [[y]]\n")
    assert [(k.target, k.line) for k in parsed.links] == [("x", 5), ("y", 7)]


# -- summaries, in qipu's order ---------------------------------------------------------


def test_summary_front_matter_first() -> None:
    text = "---\nsummary: From the field.\n---\nFirst para.\n\n## Summary\n\nFrom the section.\n"
    assert note(text).summary == "From the field."


def test_summary_section_second() -> None:
    text = "# T\n\nFirst para.\n\n## Summary\n\n- a list\n\nFrom the *section*,\nwrapped.\n"
    assert note(text).summary == "From the section, wrapped."


def test_summary_section_ends_at_the_next_heading_of_its_level() -> None:
    text = "First para.\n\n## Summary\n\n### Sub\n\n## Next\n\nNot this.\n"
    assert note(text).summary == "First para."  # the section had no paragraph of its own


def test_summary_first_paragraph_third() -> None:
    text = "# T\n\n> quoted\n\nThe [first](x.md) one, with [[a|alias]] and `code`.\n\nSecond.\n"
    assert note(text).summary == "The first one, with alias and code."


def test_summary_empty_last() -> None:
    assert note("# Only a title\n\n- a\n- b\n").summary == ""


# -- bad files --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("---\ntitle: [broken\n---\n", 3, "broken front matter"),
        ("---\nid: a\ntitle: x: y\n---\n", 3, "mapping values are not allowed"),
        ("---\nid: a\n", 1, "never closed"),
        ("---\n- a\n- b\n---\n", 2, "must be a mapping"),
        ("---\nid: a\ntags: {x: 1}\n---\n", 3, "'tags' must be a list of strings"),
        ("---\ntitle: [a, b]\n---\n", 2, "'title' must be a string"),
        ("---\nlinks:\n  - {type: x}\n---\n", 2, "'links' entries must be"),
        ("---\nlinks: [{to: a, type: 'two words'}]\n---\n", 2, "link type must be one word"),
    ],
)
def test_broken_front_matter_names_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(NoteError, match=message) as caught:
        parse_note(text.encode(), "bad.md")
    assert caught.value.line == line
    assert str(caught.value).startswith(f"bad.md:{line}: ")


def test_binary_data_is_refused_with_its_line() -> None:
    with pytest.raises(NoteError, match="binary data") as caught:
        parse_note(b"# fine\nstill fine\n\x00\x01\x02", "pic.md")
    assert caught.value.line == 3


def test_invalid_utf8_is_refused_with_its_line() -> None:
    with pytest.raises(NoteError, match=r"not UTF-8 text \(byte 0xff") as caught:
        parse_note(b"line one\nline \xff two\n", "latin.md")
    assert caught.value.line == 2


def test_deeply_nested_front_matter_is_refused_with_its_line() -> None:
    ok = "---\ntitle: Fine\nx: " + "[" * 127 + "]" * 127 + "\n---\n"  # 128 with the mapping
    assert note(ok).title == "Fine"
    deep = "---\ntitle: Deep\nx: " + "[" * 128 + "]" * 128 + "\n---\n"
    with pytest.raises(NoteError) as caught:
        note(deep)
    assert (
        str(caught.value)
        == "dir/note.md:3: broken front matter: YAML nested deeper than 128 levels"
    )


def test_front_matter_nested_past_what_libyaml_can_compose_is_not_a_crash() -> None:
    code = (
        "from agentout.sources.notes import NoteError, parse_note\n"
        "text = '---\\nx: ' + '[' * 100_000 + ']' * 100_000 + '\\n---\\nBody.\\n'\n"
        "try:\n"
        "    parse_note(text.encode(), 'deep.md')\n"
        "except NoteError as exc:\n"
        "    print(exc)\n"
    )
    # a subprocess: libyaml's composer recursing 100,000 levels deep kills the process
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == "deep.md:2: broken front matter: YAML nested deeper than 128 levels\n"
