"""Notes: indexing a 10,000-note vault warm (cache) against a cold parse, same run.

The vault is generated into a private temporary folder: notes with front matter, tags,
summaries, typed links, wiki links and Markdown links (a few dangling). Cold is
``load_vault`` with the cache off (every file read and parsed by markdown-it-py);
warm is ``load_vault`` with a cache filled by an earlier run, which stats every file
and parses none. "index" is what ``agentout notes index DIR`` does end to end: load,
build the result, pack it, render the records text.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _common import Timing, quick, race, ratio, rounds, seconds, table, verdict
from agentout import pack
from agentout.sources.notes import index_result, load_vault
from agentout.sources.notes.vault import paused_gc

NOTES = 10_000
TARGET_SECONDS = 2.0
_WORDS = [
    "budget",
    "token",
    "record",
    "view",
    "pack",
    "format",
    "header",
    "summary",
    "agent",
    "context",
    "note",
    "link",
    "graph",
    "vault",
    "cache",
    "parse",
    "exact",
    "limit",
    "whole",
    "disclosure",
    "index",
    "query",
    "edge",
    "body",
    "tree",
    "path",
    "reference",
    "warning",
    "store",
    "page",
    "spill",
    "layer",
    "output",
    "program",
    "detail",
]


def _sentence(rng: random.Random, n: int) -> str:
    words = [rng.choice(_WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def generate(root: Path, count: int, seed: int = 7) -> None:
    """Write ``count`` notes under ``root`` (in 100 folders), deterministic for a seed."""
    rng = random.Random(seed)
    for i in range(count):
        folder = root / f"area-{i % 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        others = [rng.randrange(count) for _ in range(3)]
        typed = f"links:\n  - {{to: n{others[0]:05d}, type: supports}}\n" if i % 3 else ""
        summary = f"summary: {_sentence(rng, 10)}\n" if i % 4 == 0 else ""
        front = (
            f"---\nid: n{i:05d}\ntitle: {_sentence(rng, 4)[:-1]}\ntype: "
            f"{rng.choice(['concept', 'howto', 'log'])}\ntags: [{rng.choice(_WORDS)}, "
            f"{rng.choice(_WORDS)}]\n{summary}{typed}---\n"
        )
        dangling = " See [[gone-{i}]]." if i % 50 == 0 else ""
        body = (
            f"# Note {i}\n\n{_sentence(rng, 25)} It builds on [[n{others[1]:05d}]] and "
            f"[the other](../area-{others[2] % 100:02d}/note-{others[2]:05d}.md).{dangling}\n\n"
            f"## Summary\n\n{_sentence(rng, 15)}\n\n- {_sentence(rng, 8)}\n- "
            f"{_sentence(rng, 8)}\n\n```python\nprint('[[not a link]]')\n```\n"
        )
        (folder / f"note-{i:05d}.md").write_text(front + body, encoding="utf-8")


def _time(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def _command(vault_dir: Path, cache_dir: Path, *args: str) -> Callable[[], None]:
    """``agentout notes index`` as a user runs it: a new process, output to a pipe."""
    exe = Path(sys.executable).with_name("agentout")
    argv = [str(exe), "notes", "index", str(vault_dir), *args]
    env = {**os.environ, "AGENTOUT_CACHE_DIR": str(cache_dir.parent)}
    return lambda: subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)


def main() -> str:
    count = 1_000 if quick() else NOTES
    n = rounds(3)
    with tempfile.TemporaryDirectory(prefix="agentout-bench-notes-") as temp:
        vault_dir, cache_dir = Path(temp) / "vault", Path(temp) / "cache" / "notes"
        vault_dir.mkdir()
        generate(vault_dir, count)
        size = sum(p.stat().st_size for p in vault_dir.rglob("*.md"))
        vault = load_vault(vault_dir, cache_dir=cache_dir)  # fills the cache
        assert load_vault(vault_dir, cache_dir=cache_dir).parsed == 0, "the cache missed"

        def library() -> str:
            with paused_gc():  # as the command does
                return pack(index_result(load_vault(vault_dir, cache_dir=cache_dir))).text

        loads = race(
            {
                "cold": lambda: load_vault(vault_dir, cache=False),
                "warm": lambda: load_vault(vault_dir, cache_dir=cache_dir),
                "library": library,
            },
            n,
        )
        commands = race(
            {
                "cold": _command(vault_dir, cache_dir, "--no-cache"),
                "warm": _command(vault_dir, cache_dir),
                "budget": _command(vault_dir, cache_dir, "--max-tokens", "4000"),
            },
            n,
        )
        touched = vault_dir / "area-00" / "note-00000.md"
        touched.write_text(touched.read_text() + "\nOne more line.\n", encoding="utf-8")
        one_changed, changed = _time(lambda: load_vault(vault_dir, cache_dir=cache_dir))

    cold = loads["cold"]

    def row(what: str, timing: Timing | float) -> list[str]:
        if isinstance(timing, float):
            return [what, seconds(timing), "", ratio(cold.best / timing)]
        return [what, seconds(timing.best), seconds(timing.median), ratio(cold.best / timing.best)]

    rows = [
        row("load, cold: parse every file (no cache)", cold),
        row("load, warm: every file from the cache", loads["warm"]),
        row(f"load, one file changed since (files parsed: {changed.parsed})", one_changed),
        row("load + result + pack + render, warm, same process", loads["library"]),
        row("`agentout notes index DIR --no-cache` (new process)", commands["cold"]),
        row("`agentout notes index DIR` warm (new process)", commands["warm"]),
        row("`agentout notes index DIR --max-tokens 4000` warm", commands["budget"]),
    ]
    warm = commands["warm"].best
    ok = warm <= TARGET_SECONDS
    return "\n\n".join(
        [
            f"## Notes: a {count:,}-note vault, warm cache against a cold parse",
            f"{count:,} generated notes ({size / 1e6:.1f} MB, {len(vault.graph.edges):,} edges, "
            f"{len(vault.graph.dangling):,} dangling), timed in this run in {n} interleaved "
            "rounds. The last column is the speed-up over the cold load (every file parsed "
            "by markdown-it-py and PyYAML). A new process also pays for Python, the imports "
            "and the tokenizer tables; unbudgeted, it renders and counts every note (the "
            "whole vault as N and S lines).",
            table(["what", "best", "median", "vs cold load"], rows),
            f"Must reach: `agentout notes index DIR` warm ≤ {TARGET_SECONDS:.0f} s, unbudgeted, "
            f"as a new process: **{verdict(ok)}** ({seconds(warm)}).",
        ]
    )


if __name__ == "__main__":
    print(main())
