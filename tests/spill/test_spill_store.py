"""The spill store: private, atomic, exact, and never fooled by symlinks or traversal."""

from __future__ import annotations

import errno
import os
import re
import stat
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentout.store.spill import NAME_PATTERN, SpillError, SpillStore

property_settings = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Lines as a log has them: unicode, empty, huge, and bytes that are not UTF-8 at all.
log_lines = st.lists(
    st.one_of(
        st.text(max_size=200).map(lambda t: t.encode("utf-8")),
        st.binary(max_size=200),
        st.just(b""),
        st.just(b"\n"),
        st.integers(min_value=1, max_value=300_000).map(lambda n: b"x" * n),
        st.sampled_from([b"\xff\xfe", b"\xc3\x28", b"\r\n", b"\x1b[31mred\x1b[0m\n"]),
    ),
    max_size=30,
)


def mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@property_settings
@given(lines=log_lines)
def test_the_spilled_file_is_the_input_byte_for_byte(store: SpillStore, lines: list[bytes]) -> None:
    ref = store.write_lines(lines, kind="run", suffix=".log")
    expected = b"".join(lines)
    assert ref.path.read_bytes() == expected
    assert ref.size == len(expected)
    with ref.path.open("rb") as handle:  # what `for line in f` (and `show`) calls a line
        assert ref.lines == sum(1 for _ in handle)


@property_settings
@given(text=st.text(max_size=2000))
def test_write_text_round_trips_any_text(store: SpillStore, text: str) -> None:
    ref = store.write_text(text, kind="records", suffix=".txt")
    assert ref.path.read_bytes().decode("utf-8") == text
    with store.open_ref(ref.ref) as handle:
        assert handle.read() == text.encode("utf-8")


def test_store_is_0700_and_files_are_0600(store: SpillStore, spill_dir: Path) -> None:
    ref = store.write_text("hello\n", kind="run")
    assert mode(spill_dir) == 0o700
    assert mode(ref.path) == 0o600
    assert ref.path.parent == spill_dir


def test_a_loose_existing_store_is_made_private(tmp_path: Path) -> None:
    root = tmp_path / "loose"
    root.mkdir(mode=0o777)
    os.chmod(root, 0o777)
    SpillStore(root)
    assert mode(root) == 0o700


def test_names_are_unguessable_and_follow_the_pattern(store: SpillStore) -> None:
    names = {store.write_text("x", kind="run", suffix=".log").ref for _ in range(50)}
    assert len(names) == 50
    assert all(NAME_PATTERN.match(name) for name in names)
    randoms = {re.search(r"-([0-9a-f]{16})\.", name).group(1) for name in names}  # type: ignore[union-attr]
    assert len(randoms) == 50
    assert all(re.fullmatch(r"run-[0-9a-f]{16}\.log", name) for name in names)  # no date


@pytest.mark.parametrize(("kind", "suffix"), [("Run", ".log"), ("a/b", ".log"), ("run", "log")])
def test_bad_kinds_and_suffixes_are_refused(store: SpillStore, kind: str, suffix: str) -> None:
    with pytest.raises(ValueError, match="spill"):
        store.write_text("x", kind=kind, suffix=suffix)


def test_no_partial_file_is_visible_under_a_final_name(store: SpillStore, spill_dir: Path) -> None:
    with store.open(kind="run", suffix=".log") as writer:
        writer.write(b"a" * (3 << 20))  # past the buffer: really on disk already
        visible = sorted(p.name for p in spill_dir.iterdir())
        assert [name for name in visible if NAME_PATTERN.match(name)] == []
        assert len(visible) == 1
        assert visible[0].startswith(".partial-")
        ref = writer.commit()
    assert sorted(p.name for p in spill_dir.iterdir()) == [ref.ref]
    assert ref.path.stat().st_size == 3 << 20


def test_a_failed_write_leaves_nothing_behind(store: SpillStore, spill_dir: Path) -> None:
    def produce() -> None:
        with store.open(kind="run") as writer:
            writer.write(b"some output\n")
            raise RuntimeError("the producer failed")

    with pytest.raises(RuntimeError):
        produce()
    assert list(spill_dir.iterdir()) == []


def test_a_full_disk_surfaces_as_oserror_and_cleans_up(
    store: SpillStore, spill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def full(fd: int, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    with pytest.raises(OSError, match="No space"):
        store.write_text("x" * 100, kind="run")
    assert list(spill_dir.iterdir()) == []


def test_a_symlinked_store_is_refused(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    with pytest.raises(SpillError, match="symlink"):
        SpillStore(link)


def test_a_store_that_is_a_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "file"
    path.write_text("not a directory")
    with pytest.raises(SpillError, match="not a directory"):
        SpillStore(path)


def test_resolve_accepts_the_name_and_the_full_path(store: SpillStore) -> None:
    ref = store.write_text("x\n", kind="run", suffix=".log")
    assert store.resolve(ref.ref) == ref.path
    assert store.resolve(str(ref.path)) == ref.path


@pytest.mark.parametrize(
    "bad",
    [
        "../20250101-run-0123456789abcdef.log",
        "sub/../../20250101-run-0123456789abcdef.log",
        "/etc/passwd",
        "/tmp/20250101-run-0123456789abcdef.log",
        "..",
        "passwd",
    ],
)
def test_resolve_refuses_what_is_outside_or_foreign(store: SpillStore, bad: str) -> None:
    with pytest.raises(SpillError, match=r"not in the spill store|not a file agentout spilled"):
        store.resolve(bad)


def test_resolve_refuses_a_traversal_back_into_the_store(
    store: SpillStore, spill_dir: Path
) -> None:
    ref = store.write_text("x\n", kind="run", suffix=".log")
    sneaky = f"{spill_dir}/../{spill_dir.name}/{ref.ref}"
    with pytest.raises(SpillError, match="not in the spill store"):
        store.resolve(sneaky)


def test_a_symlink_swapped_in_is_refused(store: SpillStore, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("do not show\n")
    ref = store.write_text("spilled\n", kind="run", suffix=".log")
    ref.path.unlink()
    ref.path.symlink_to(secret)
    with pytest.raises(SpillError, match="symlink"):
        store.resolve(ref.ref)
    assert secret.read_text() == "do not show\n"


def test_open_ref_does_not_follow_a_symlink_swapped_in_after_resolve(
    store: SpillStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("do not show\n")
    ref = store.write_text("spilled\n", kind="run", suffix=".log")
    resolved = store.resolve(ref.ref)
    ref.path.unlink()
    ref.path.symlink_to(secret)
    monkeypatch.setattr(store, "resolve", lambda _ref: resolved)  # the race, made certain
    with pytest.raises(SpillError, match="cannot open"):
        store.open_ref(ref.ref)


def test_a_deleted_reference_says_so(store: SpillStore) -> None:
    ref = store.write_text("x\n", kind="run", suffix=".log")
    ref.path.unlink()
    with pytest.raises(SpillError, match="no such spilled file"):
        store.resolve(ref.ref)


def test_a_reference_not_in_the_store_says_so_and_where_it_looked(store: SpillStore) -> None:
    """What agentout printed (16 hex digits) and the store does not hold: not "not a file
    agentout spilled", but where it was looked for and why it may be gone."""
    with pytest.raises(SpillError) as raised:
        store.resolve(store.find_id("f652bfbd69c294b1"))
    assert str(raised.value) == (
        f"f652bfbd69c294b1: no such reference in the store (looked in {store.root}; removed "
        "by `agentout clean`, or older than 7 days?); run the command again"
    )


# -- clean --------------------------------------------------------------------------------


def _age(path: Path, days: float) -> None:
    then = time.time() - days * 86400
    os.utime(path, (then, then), follow_symlinks=False)


def test_clean_removes_only_agentouts_old_files(
    store: SpillStore, spill_dir: Path, tmp_path: Path
) -> None:
    old = store.write_text("old output\n", kind="run", suffix=".log")
    new = store.write_text("new output\n", kind="run", suffix=".log")
    _age(old.path, 8)
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    _age(outside, 30)
    foreign = {
        "notes.txt": "user's own file",
        "20250101-run-0123456789abcdef.log.bak": "near miss",
        "20250101-RUN-0123456789abcdef.log": "capital kind",
    }
    for name, text in foreign.items():
        (spill_dir / name).write_text(text)
        _age(spill_dir / name, 30)
    link = spill_dir / "20250101-run-fedcba9876543210.log"  # the right name, but a symlink
    link.symlink_to(outside)
    _age(link, 30)
    directory = spill_dir / "20250101-run-00112233445566aa.log"
    directory.mkdir()
    _age(directory, 30)

    dry = store.clean(7 * 86400, dry_run=True)
    assert [f.path for f in dry] == [old.path]
    assert old.path.exists()

    removed = store.clean(7 * 86400)
    assert [f.path for f in removed] == [old.path]
    assert removed[0].size == len("old output\n")
    assert not old.path.exists()
    assert new.path.exists()
    assert outside.read_text() == "precious\n"
    assert link.is_symlink()
    assert directory.is_dir()
    for name, text in foreign.items():
        assert (spill_dir / name).read_text() == text


def test_clean_removes_stale_partial_files(store: SpillStore, spill_dir: Path) -> None:
    stale = spill_dir / ".partial-0123456789abcdef"  # left by a process that died
    stale.write_bytes(b"abandoned")
    _age(stale, 8)
    removed = store.clean(7 * 86400)
    assert [f.path for f in removed] == [stale]
    assert not stale.exists()


def test_the_first_write_prunes_files_past_the_retention(spill_dir: Path) -> None:
    first = SpillStore(spill_dir)
    old = first.write_text("old\n", kind="run")
    _age(old.path, 8)
    foreign = spill_dir / "keep.txt"
    foreign.write_text("mine")
    _age(foreign, 30)
    later = SpillStore(spill_dir)  # a later process
    new = later.write_text("new\n", kind="run")
    assert not old.path.exists()
    assert new.path.exists()
    assert foreign.read_text() == "mine"


def test_names_by_content_are_the_same_for_the_same_bytes(store: SpillStore) -> None:
    def spill(data: bytes) -> str:
        with store.open(kind="records", suffix=".jsonl", by_content=True) as writer:
            writer.write(data)
            return writer.commit().ref

    first, again, other = spill(b'{"a":1}\n'), spill(b'{"a":1}\n'), spill(b'{"a":2}\n')
    assert first == again != other
    assert NAME_PATTERN.match(first)
    assert (store.root / first).read_bytes() == b'{"a":1}\n'


# -- a file being written is never cleaned away (review finding 1) --------------------------


def test_clean_spares_a_partial_file_still_being_written(
    store: SpillStore, spill_dir: Path
) -> None:
    data = b"a" * (3 << 20)  # past the buffer: on disk in the partial file
    with store.open(kind="run", suffix=".log") as writer:
        writer.write(data)
        _age(writer.temp, 30)
        assert store.clean(0) == []
        assert store.clean(0, dry_run=True) == []
        assert writer.temp.exists()
        ref = writer.commit()
    assert ref.path.read_bytes() == data


def test_what_was_written_is_salvaged_even_if_the_partial_file_was_removed(
    store: SpillStore,
) -> None:
    data = bytes(range(256)) * 12_000  # 3 MB: most of it flushed to the file
    writer = store.open(kind="run", suffix=".log")
    writer.write(data)
    assert writer.flushed > 0
    os.unlink(writer.temp)  # by hand, or a cleaner that does not look at locks
    assert writer.salvage() == data


def test_a_commit_after_the_partial_file_was_removed_fails_and_salvage_still_works(
    store: SpillStore,
) -> None:
    writer = store.open(kind="run", suffix=".log")
    writer.write(b"x" * (2 << 20))
    os.unlink(writer.temp)
    with pytest.raises(FileNotFoundError):
        writer.commit()
    assert writer.salvage() == b"x" * (2 << 20)


# -- names carry no date: the same content has the same name every day (finding 19) -------


def test_names_by_content_are_the_content_hash_without_a_date(store: SpillStore) -> None:
    import hashlib

    data = b'{"a":1}\n'
    with store.open(kind="records", suffix=".jsonl", by_content=True) as writer:
        writer.write(data)
        ref = writer.commit()
    digest = hashlib.blake2b(data, digest_size=32).hexdigest()
    assert ref.ref == f"records-{digest[:16]}.jsonl"


def test_names_of_older_versions_with_a_date_are_still_shown_and_cleaned(
    store: SpillStore, spill_dir: Path
) -> None:
    legacy = spill_dir / "20250101-run-0123456789abcdef.log"
    legacy.write_bytes(b"from an older agentout\n")
    os.chmod(legacy, 0o600)
    assert store.resolve(legacy.name) == legacy
    _age(legacy, 8)
    assert [f.path for f in store.clean(7 * 86400)] == [legacy]
