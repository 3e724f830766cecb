"""A folder of notes: what is served, what is skipped and why, links resolved, the cache."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from notes_support import EXAMPLE, MakeVault

from agentout.errors import InputError
from agentout.sources.notes import NoteError, UnknownNoteError, load_vault

# -- the example vault ------------------------------------------------------------------------


def test_example_vault_loads_whole() -> None:
    vault = load_vault(EXAMPLE)
    assert vault.problems == ()
    assert vault.files == len(list(EXAMPLE.rglob("*.md"))) == len(vault.notes)
    assert list(vault.notes) == sorted(vault.notes)  # id order, always
    assert "concepts/reference-not-instructions" in vault.notes  # id from path


def test_example_vault_has_a_cycle_and_dangling_links() -> None:
    vault = load_vault(EXAMPLE)
    pairs = {(e.source, e.target) for e in vault.graph.edges}
    assert {("budgets", "exact-counts"), ("exact-counts", "tokenizers")} <= pairs
    assert ("tokenizers", "budgets") in pairs
    dangling = {(e.source, e.target) for e in vault.graph.dangling}
    assert ("dangling-links", "context-compression") in dangling


# -- bad files: skipped, named, the rest served -----------------------------------------------


def test_bad_files_are_skipped_and_named_and_the_rest_served(make_vault: MakeVault) -> None:
    root = make_vault(
        {
            "good.md": "---\nid: good\n---\nLinks to [[also-good]].\n",
            "also-good.md": "Fine.\n",
            "broken.md": "---\ntitle: [oops\n---\n",
            "binary.md": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "latin1.md": "caf\xe9\n".encode("latin-1"),
        }
    )
    vault = load_vault(root)
    assert sorted(vault.notes) == ["also-good", "good"]
    assert vault.skipped == 3
    messages = {Path(p.path or "").name: str(p) for p in vault.problems}
    assert messages["broken.md"].startswith(f"{root}/broken.md:3: broken front matter")
    binary = f"{root}/binary.md:3: binary data (a NUL byte at offset 8), not a note"
    assert messages["binary.md"] == binary  # line 3: two newlines come before the NUL
    assert "not UTF-8" in messages["latin1.md"]
    assert [e.target for e in vault.graph.edges] == ["also-good"]


def test_duplicate_ids_name_both_files_and_keep_the_first(make_vault: MakeVault) -> None:
    root = make_vault(
        {
            "a/first.md": "---\nid: same\ntitle: First\n---\n",
            "b/second.md": "---\ntitle: Second\nid: same\n---\n",
            "c.md": "Other.\n",
        }
    )
    vault = load_vault(root)
    assert vault.notes["same"].title == "First"
    assert "c" in vault.notes
    (problem,) = vault.problems
    assert str(problem) == (
        f"{root}/b/second.md:3: duplicate id 'same', already taken by {root}/a/first.md:2; skipped"
    )


def test_a_huge_note_is_skipped_without_being_read(make_vault: MakeVault) -> None:
    root = make_vault({"small.md": "Small.\n"})
    with open(root / "huge.md", "wb") as out:  # 50 MB, sparse: the size is what counts
        out.truncate(50 * 1024 * 1024)
    vault = load_vault(root)
    assert list(vault.notes) == ["small"]
    (problem,) = vault.problems
    assert str(problem) == (
        f"{root}/huge.md: note is 52,428,800 bytes, over the 10,485,760-byte limit; skipped"
    )
    assert list(load_vault(root, max_note_bytes=60 << 20).problems) != [problem]


def test_hidden_folders_and_other_files_are_not_notes(make_vault: MakeVault) -> None:
    root = make_vault(
        {
            ".obsidian/workspace.md": "x",
            ".hidden.md": "x",
            "pic.png": b"\x00",
            "readme.txt": "x",
            "n.markdown": "Yes.\n",
        }
    )
    assert list(load_vault(root).notes) == ["n"]


def test_a_missing_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such folder"):
        load_vault(tmp_path / "nope")
    (tmp_path / "note.md").write_text("a file\n")
    with pytest.raises(InputError, match="not a folder of notes"):
        load_vault(tmp_path / "note.md")


# -- links resolved -------------------------------------------------------------------------


def test_wiki_links_resolve_by_id_path_file_name_and_case(make_vault: MakeVault) -> None:
    root = make_vault(
        {
            "src.md": "[[t1]] [[deep/t2]] [[t3]] [[T4]] [[t5.md]] [[ghost]] [[src]]\n",
            "x/t1.md": "---\nid: t1\n---\n",
            "deep/t2.md": "",
            "far/away/t3.md": "",
            "t4.md": "",
            "t5.md": "",
        }
    )
    vault = load_vault(root)
    edges = [(e.target, e.dangling) for e in vault.graph.edges]
    assert edges == [
        ("t1", False),
        ("deep/t2", False),
        ("far/away/t3", False),
        ("t4", False),
        ("t5", False),
        ("ghost", True),
    ]  # and the link of src to itself is dropped


def test_markdown_links_resolve_by_path(make_vault: MakeVault) -> None:
    root = make_vault(
        {
            "a/src.md": "[x](../b/t.md) [y](t2) [z](missing.md) [w](folder)\n",
            "b/t.md": "---\nid: custom\n---\n",
            "a/t2.md": "",
        }
    )
    edges = [(e.target, e.dangling) for e in load_vault(root).graph.edges]
    assert edges == [("custom", False), ("a/t2", False), ("a/missing.md", True)]


def test_find_names_a_note_or_suggests(make_vault: MakeVault) -> None:
    root = make_vault({"notes/budget-rules.md": "", "other.md": ""})
    vault = load_vault(root)
    assert vault.find("notes/budget-rules") == vault.find("budget-rules") == "notes/budget-rules"
    with pytest.raises(UnknownNoteError, match=r"no note 'notes/budget-rule' .*did you mean"):
        vault.find("notes/budget-rule")


def test_body_is_read_fresh_without_front_matter(make_vault: MakeVault) -> None:
    root = make_vault({"n.md": "---\nid: n\n---\n\n# Title\n\nText.\n\n"})
    vault = load_vault(root)
    assert vault.body("n") == "# Title\n\nText."


# -- the cache ------------------------------------------------------------------------------


def test_a_warm_load_parses_only_what_changed(make_vault: MakeVault, cache_dir: Path) -> None:
    root = make_vault({f"n{i}.md": f"Note {i}, see [[n{i + 1}]].\n" for i in range(20)})
    cold = load_vault(root)
    assert cold.parsed == 20
    warm = load_vault(root)
    assert warm.parsed == 0
    assert warm.notes == cold.notes
    assert warm.graph.edges == cold.graph.edges

    (root / "n3.md").write_text("Changed, longer text now.\n", encoding="utf-8")
    (root / "n4.md").unlink()
    (root / "n99.md").write_text("New.\n", encoding="utf-8")
    changed = load_vault(root)
    assert changed.parsed == 2  # n3 and n99
    assert changed.notes["n3"].summary == "Changed, longer text now."
    assert "n4" not in changed.notes
    cached = json.loads(next(cache_dir.glob("*.json")).read_text(encoding="utf-8"))
    assert sorted(cached["files"]) == sorted(p.name for p in root.glob("*.md"))


def test_the_cache_remembers_bad_files_too(make_vault: MakeVault) -> None:
    root = make_vault({"bad.md": "---\n[\n---\n", "good.md": ""})
    first = load_vault(root)
    again = load_vault(root)
    assert again.parsed == 0
    assert [str(p) for p in again.problems] == [str(p) for p in first.problems]


def test_the_cache_is_private_and_outside_the_vault(make_vault: MakeVault, cache_dir: Path) -> None:
    root = make_vault({"n.md": "x"})
    before = sorted(p.name for p in root.rglob("*"))
    load_vault(root)
    assert sorted(p.name for p in root.rglob("*")) == before
    (cache_file,) = cache_dir.iterdir()
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(cache_dir.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(cache_file.stat().st_mode) == 0o600


def test_a_corrupt_cache_is_ignored(make_vault: MakeVault, cache_dir: Path) -> None:
    root = make_vault({"n.md": "Text.\n"})
    load_vault(root)
    (cache_file,) = cache_dir.iterdir()
    for junk in ("not json", '{"version": 0}', json.dumps({"files": {"n.md": [1, 2, 3]}})):
        cache_file.write_text(junk, encoding="utf-8")
        vault = load_vault(root)
        assert vault.notes["n"].summary == "Text."
        assert vault.cache_warning is None


def test_an_unwritable_cache_is_reported_not_fatal(make_vault: MakeVault, tmp_path: Path) -> None:
    root = make_vault({"n.md": "Text.\n"})
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    vault = load_vault(root, cache_dir=blocker / "notes")
    assert list(vault.notes) == ["n"]
    assert vault.cache_warning is not None
    assert "cannot use the notes cache" in vault.cache_warning


def test_no_cache_writes_nothing(make_vault: MakeVault, cache_dir: Path) -> None:
    root = make_vault({"n.md": "Text.\n"})
    assert load_vault(root, cache=False).parsed == 1
    assert not cache_dir.exists()


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_symlinked_cache_dir_is_refused(make_vault: MakeVault, tmp_path: Path) -> None:
    root = make_vault({"n.md": "Text.\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "cache-parent").mkdir()
    (tmp_path / "cache-parent" / "notes").symlink_to(elsewhere)
    planted = elsewhere / "anything.json"
    planted.write_text("{}")
    vault = load_vault(root, cache_dir=tmp_path / "cache-parent" / "notes")
    assert vault.cache_warning is not None
    assert "the notes cache is a symlink; refusing to use it" in vault.cache_warning
    assert list(elsewhere.iterdir()) == [planted]  # neither read as a cache nor written
    assert vault.notes["n"].summary == "Text."


def test_a_folder_whose_path_is_not_utf8_is_cached(tmp_path: Path, cache_dir: Path) -> None:
    root = tmp_path / os.fsdecode(b"caf\xe9") / "vault"
    root.mkdir(parents=True)
    (root / "n.md").write_text("Text.\n", encoding="utf-8")
    cold = load_vault(root)
    assert cold.cache_warning is None
    warm = load_vault(root)
    assert warm.cache_warning is None
    assert warm.parsed == 0  # the cache written with the odd path is read back
    assert warm.notes == cold.notes


def test_a_file_name_that_is_not_utf8_is_skipped_and_named(make_vault: MakeVault) -> None:
    root = make_vault({"good.md": "Fine.\n"})
    (root / os.fsdecode(b"bad\xff.md")).write_text("---\ntitle: Bad\n---\n", encoding="utf-8")
    (root / os.fsdecode(b"dir\xe9")).mkdir()
    (root / os.fsdecode(b"dir\xe9") / "inner.md").write_text("Inner.\n", encoding="utf-8")
    for _ in range(2):  # cold, then warm: the cache is written and read back
        vault = load_vault(root)
        assert vault.cache_warning is None
        assert list(vault.notes) == ["good"]
        assert [str(p) for p in vault.problems] == [
            f"{root}/bad\\xff.md: the file name is not UTF-8; rename it to read it as a note",
            f"{root}/dir\\xe9: the folder name is not UTF-8; rename it to read its notes",
        ]
    assert vault.parsed == 0


def test_a_cache_that_cannot_be_encoded_is_a_warning_not_a_failure(
    make_vault: MakeVault, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agentout.sources.notes.vault as vault_module

    root = make_vault({"n.md": "Text.\n"})

    def refuse(*args: object, **kwargs: object) -> str:
        raise ValueError("Circular reference detected")

    monkeypatch.setattr(vault_module.json, "dumps", refuse)
    vault = load_vault(root)
    assert vault.notes["n"].summary == "Text."
    assert vault.cache_warning is not None
    assert vault.cache_warning.startswith("cannot write the notes cache in ")
    assert "Circular reference detected" in vault.cache_warning


# -- symlinks: followed inside the folder, refused outside it -----------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the vault, holding a note and a secret that is no note."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("s3cret\n", encoding="utf-8")
    (folder / "far.md").write_text("---\nid: far\n---\nFar away.\n", encoding="utf-8")
    return folder


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_file_symlink_to_outside_the_vault_is_refused(
    make_vault: MakeVault, outside: Path
) -> None:
    root = make_vault({"n.md": "Text.\n"})
    (root / "leak.md").symlink_to(outside / "secret.txt")
    (root / "far.md").symlink_to(outside / "far.md")
    vault = load_vault(root)
    assert list(vault.notes) == ["n"]
    assert [str(p) for p in vault.problems] == [
        f"{root}/far.md: a symlink to a file outside {root}; skipped",
        f"{root}/leak.md: a symlink to a file outside {root}; skipped",
    ]
    assert "s3cret" not in json.dumps([n.summary for n in vault.notes.values()])


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_file_symlink_inside_the_vault_is_read_under_its_own_path(
    make_vault: MakeVault,
) -> None:
    root = make_vault({"real/target.md": "Target text.\n", ".drafts/hidden.txt": "Draft.\n"})
    (root / "alias.md").symlink_to(root / "real" / "target.md")
    (root / "draft.md").symlink_to(Path(".drafts") / "hidden.txt")  # relative, inside
    vault = load_vault(root)
    assert vault.problems == ()
    assert list(vault.notes) == ["alias", "draft", "real/target"]
    assert vault.notes["alias"].summary == "Target text."
    assert vault.body("draft") == "Draft."


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_folder_symlinks_are_not_followed_and_one_outside_is_reported(
    make_vault: MakeVault, outside: Path
) -> None:
    root = make_vault({"real/a.md": "A.\n"})
    (root / "inside-link").symlink_to(root / "real")  # its notes are read once, as real/...
    (root / "loop").symlink_to(root)  # would walk forever if followed
    (root / "outside-link").symlink_to(outside)
    vault = load_vault(root)
    assert list(vault.notes) == ["real/a"]
    assert [str(p) for p in vault.problems] == [
        f"{root}/outside-link: a symlink to a folder outside {root}; not followed"
    ]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_vault_reached_through_a_symlink_reads_its_own_links(
    make_vault: MakeVault, tmp_path: Path
) -> None:
    root = make_vault({"real.md": "Real.\n"})
    (root / "alias.md").symlink_to("real.md")
    via = tmp_path / "via"
    via.symlink_to(root)
    vault = load_vault(via)
    assert vault.problems == ()
    assert list(vault.notes) == ["alias", "real"]


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symlinks")
def test_a_note_swapped_for_an_outside_symlink_after_loading_is_not_read(
    make_vault: MakeVault, outside: Path
) -> None:
    root = make_vault({"n.md": "Text.\n"})
    vault = load_vault(root)
    (root / "n.md").unlink()
    (root / "n.md").symlink_to(outside / "secret.txt")
    with pytest.raises(NoteError, match=r"n\.md: a symlink to a file outside .*; skipped"):
        vault.body("n")
