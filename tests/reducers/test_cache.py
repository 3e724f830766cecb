"""Reducer files read before are rebuilt from the user cache: the same reducers, no TOML
parser on a command's path, and a cache that is broken or hostile is only ignored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agentout.reducers import cache
from agentout.reducers import spec_file as spec
from agentout.reducers.builtin import builtins

BUILTIN = Path(spec.__file__).parent / "toml"


@pytest.fixture(autouse=True)
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(cache.ENV_CACHE_DIR, str(tmp_path / "cache"))
    monkeypatch.setattr(spec, "_KNOWN", cache.KnownTexts("reducer-files.json"))
    return tmp_path / "cache" / "reducer-files.json"


@pytest.mark.parametrize("path", sorted(BUILTIN.glob("*.toml")), ids=lambda p: p.stem)
def test_rebuilt_equals_read(path: Path, private_cache: Path) -> None:
    text = path.read_text(encoding="utf-8")
    read = spec.load_spec(path, text)
    assert text in json.loads(private_cache.read_text(encoding="utf-8"))
    spec._KNOWN = cache.KnownTexts("reducer-files.json")  # a new process, as it were
    rebuilt = spec.load_spec(path, text)
    assert rebuilt == read
    assert rebuilt.cases == read.cases


@pytest.mark.parametrize(
    "content", ["", "not json", "[1, 2]", '{"TEXT": 3}', '{"TEXT": {"name": 5}}', '{"TEXT": {}}']
)
def test_broken_cache_is_read_past(content: str, private_cache: Path) -> None:
    path = BUILTIN / "ls.toml"
    text = path.read_text(encoding="utf-8")
    private_cache.parent.mkdir(parents=True)
    private_cache.write_text(content.replace("TEXT", json.dumps(text)[1:-1]), encoding="utf-8")
    assert spec.load_spec(path, text) == spec.load_spec(path, text, check=True)


def test_only_checked_files_are_kept(tmp_path: Path, private_cache: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\nmatch = [["x"]]\n[[step]]\nskip = "not a list"\n', "utf-8")
    with pytest.raises(spec.SpecError):
        spec.load_spec(bad)
    assert not private_cache.exists()
    with pytest.raises(spec.SpecError):
        spec.load_spec(bad)


def test_cache_bounded(private_cache: Path) -> None:
    known = cache.KnownTexts("reducer-files.json", size=3)
    for n in range(5):
        known.put(f"text {n}", {"n": n})
    assert list(json.loads(private_cache.read_text(encoding="utf-8"))) == [
        "text 2",
        "text 3",
        "text 4",
    ]


def test_a_command_with_the_cache_warm_needs_no_toml_parser(tmp_path: Path) -> None:
    code = (
        "import sys; from agentout.reducers import find; r = find(['git', 'status']); "
        "print(r.name, 'tomllib' in sys.modules)"
    )
    env = {**os.environ, cache.ENV_CACHE_DIR: str(tmp_path / "cache")}
    env["AGENTOUT_CONFIG_DIR"] = str(tmp_path / "config")
    runs = [
        subprocess.run(
            [sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True
        )
        for _ in range(2)
    ]
    assert [run.stdout for run in runs] == ["git/status True\n", "git/status False\n"]
    assert builtins()  # and in this process they still load


def test_the_cache_is_private(private_cache: Path) -> None:
    spec.load_spec(BUILTIN / "ls.toml")
    assert oct(private_cache.parent.stat().st_mode & 0o777) == "0o700"
    assert oct(private_cache.stat().st_mode & 0o777) == "0o600"


def test_texts_put_from_many_threads_at_once_are_all_kept(private_cache: Path) -> None:
    """The MCP server finds reducers on a thread per call: one thread's put must not
    change the entries another is writing to the file."""
    import threading

    known = cache.KnownTexts("threads.json", size=400)
    failures: list[BaseException] = []

    def put(worker: int) -> None:
        try:
            for i in range(25):
                known.put(f"text {worker} {i}", {"rules": 1, "n": i})
        except BaseException as exc:  # a thread's failure is the test's
            failures.append(exc)

    threads = [threading.Thread(target=put, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    saved = json.loads((private_cache.parent / "threads.json").read_text(encoding="utf-8"))
    assert len(saved) == 200
    assert saved["text 7 24"] == {"rules": 1, "n": 24}
