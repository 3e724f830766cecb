"""`agentout run` on huge output: the command is never slowed, memory stays flat.

Two outputs an agent meets when a command runs away: ``seq 1 10000000`` (79 MB, ten
million short lines) and 1 GB of ``yes`` (``yes | head -c 1000000000``). Each runs raw
(its output read from a pipe and thrown away, as a shell tool would read it), through
``agentout run`` (the output kept in the store as it arrives, the lines that matter
shown), and through rtk's catch-all filter (``rtk err``, which truncates what it reads at
10 MiB), in the same run, taking turns. For 1 GB of ``yes`` the store's cap is turned off
(``AGENTOUT_STORE_MAX_BYTES=0``: the output kept whole), and then run once more at the
default cap, 256 MiB (its head and tail kept, every byte counted). Wall time is the
clock's around each process, peak resident memory GNU time's (``/usr/bin/time -f %M``).
Checked: the stored copy is the command's output byte for byte (SHA-256), or at the cap
at most 256 MiB and a line, with the closing line's exact count of the bytes and lines;
and ``duration=`` in the header is the command's own time, not agentout's.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import quick, ratio, rounds, seconds, table, verdict

SEQ_BOUND = 2.0  # seconds for all of `agentout run -- seq 1 10000000`
YES_BOUND = 20.0  # seconds for 1 GB of yes
RSS_BOUND = 100 * 1024  # KiB
_REF = re.compile(r"agentout show ([0-9a-f]{16})\]\s*\Z")
_CAPPED = re.compile(r"capped=(\d+) bytes, (\d+) lines; (\d+) bytes not kept")
CAP = 256 << 20  # agentout.store.cap.DEFAULT_CAP
_DURATION = re.compile(r"\bduration=([0-9.]+)s?\b")


def _agentout() -> list[str]:
    return [sys.executable, str(Path(sys.executable).parent / "agentout")]


def _timed(argv: list[str], env: dict[str, str]) -> tuple[float, int, bytes]:
    """(wall seconds, peak RSS KiB, stdout) of ``argv`` under GNU time."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report:
        start = time.perf_counter()
        done = subprocess.run(
            ["/usr/bin/time", "-o", report.name, "-f", "%M", *argv],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            check=False,
        )
        wall = time.perf_counter() - start
        rss = report.read().split()[-1]
    return wall, int(rss), done.stdout


def _digest(argv: list[str]) -> str:
    sha = hashlib.sha256()
    with subprocess.Popen(argv, stdout=subprocess.PIPE) as child:
        assert child.stdout is not None
        while chunk := child.stdout.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def _stored(store: Path, output: bytes) -> Path | None:
    found = _REF.search(output.decode("utf-8", "replace"))
    if found is None:
        return None
    matches = sorted(store.rglob(f"*-{found.group(1)}.*"))
    return matches[0] if matches else None


def _file_digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            sha.update(chunk)
    return sha.hexdigest()


def main() -> str:
    lines = 200_000 if quick() else 10_000_000
    gigabyte = 20_000_000 if quick() else 1_000_000_000
    cases = {
        f"`seq 1 {lines}`": ["seq", "1", str(lines)],
        f"{gigabyte / 1e9:g} GB of `yes`": ["sh", "-c", f"yes | head -c {gigabyte}"],
    }
    rtk = shutil.which("rtk")
    if rtk is None:
        from shell.tools import prepare_tools

        tools = prepare_tools()
        rtk = str(tools.bin / "rtk") if tools.has("rtk") else None
    n = rounds(3, 1)
    rows, notes, ok = [], [], True
    with tempfile.TemporaryDirectory(prefix="agentout-bench-throughput-") as tmp:
        store = Path(tmp) / "spill"
        base = {**os.environ, "AGENTOUT_SPILL_DIR": str(store), "AGENTOUT_LEDGER": "0"}
        base.pop("AGENTOUT_STORE_MAX_BYTES", None)
        for name, argv in cases.items():
            # the store's cap off for the whole copy's check; at the cap: _capped
            env = base if name.startswith("`seq") else {**base, "AGENTOUT_STORE_MAX_BYTES": "0"}
            ways = {"raw": argv, "agentout run": [*_agentout(), "run", "--", *argv]}
            if rtk is not None:
                ways["rtk err"] = [rtk, "err", *argv]
            best: dict[str, tuple[float, int]] = {}
            last = b""
            # rtk reads 1 GB at about 5 MB/s: one round of the large case is enough
            for _ in range(n if name.startswith("`seq") else 1):
                for way, command in ways.items():
                    wall, rss, out = _timed(command, env)
                    if way not in best or wall < best[way][0]:
                        best[way] = (wall, max(rss, best.get(way, (0, 0))[1]))
                    if way == "agentout run":
                        last = out
            kept = _stored(store, last)
            exact = kept is not None and _file_digest(kept) == _digest(argv)
            records = subprocess.run(
                [*_agentout(), "run", "--format", "records", "--", *argv],
                capture_output=True,
                env=env,
                check=False,
            ).stdout.decode("utf-8", "replace")
            duration = _DURATION.search(records.split("\n", 1)[0])
            raw_wall = best["raw"][0]
            ours_wall, ours_rss = best["agentout run"]
            bound = SEQ_BOUND if name.startswith("`seq") else YES_BOUND
            good = exact and ours_rss <= RSS_BOUND and (quick() or ours_wall <= bound)
            ok = ok and good
            for way, (wall, rss) in best.items():
                rows.append(
                    [
                        name,
                        way,
                        seconds(wall),
                        ratio(wall / max(raw_wall, 1e-3)) if way != "raw" else "1.00×",
                        f"{rss / 1024:.0f} MB",
                    ]
                )
            notes.append(
                f"- {name}: `agentout run` {seconds(ours_wall)} (bound {bound:g} s), peak "
                f"{ours_rss / 1024:.0f} MB (bound 100 MB), stored copy byte-exact: "
                f"{'yes' if exact else 'NO'}, `duration=` "
                f"{duration.group(1) + ' s' if duration else 'not found'} "
                f"(the command's own time) — {verdict(good)}"
            )
            if not name.startswith("`seq"):
                good, row, note = _capped(name, argv, base, store, raw_wall, gigabyte)
                ok = ok and good
                rows.append(row)
                notes.append(note)
    headers = ("output", "way", "wall (best)", "vs raw", "peak RSS")
    return "\n\n".join(
        [
            "## Throughput: huge output through `agentout run`",
            __doc__.split("\n\n", 1)[1].strip() if __doc__ else "",
            f"Best of {n} rounds for `seq` and one for `yes`, taking turns.",
            table(headers, rows),
            "\n".join(notes),
            f"**Every bound held (time, memory, byte-exact copy): {verdict(ok)}**",
        ]
    )


def _capped(
    name: str, argv: list[str], env: dict[str, str], store: Path, raw_wall: float, size: int
) -> tuple[bool, list[str], str]:
    """``agentout run`` of ``argv`` at the default cap: the store holds at most the cap
    and a line, and the closing line counts every byte and line of the output."""
    for kept in store.glob("*"):
        kept.unlink()
    cap = CAP
    if quick():  # 20 MB would not reach the default cap: a smaller one, set
        cap, env = 4 << 20, {**env, "AGENTOUT_STORE_MAX_BYTES": "4MiB"}
    wall, rss, out = _timed([*_agentout(), "run", "--", *argv], env)
    counted = _CAPPED.search(out.decode("utf-8", "replace"))
    files = [p for p in store.glob("*") if not p.name.startswith(".")]
    held = sum(p.stat().st_size for p in files)
    exact = counted is not None and counted.group(1, 2) == (str(size), str(size // 2))
    bounded = len(files) == 1 and held <= cap + 300
    good = exact and bounded and rss <= RSS_BOUND and (quick() or wall <= YES_BOUND)
    at_cap = f"{name}, store at its cap"
    row = [at_cap, "agentout run", seconds(wall), ratio(wall / max(raw_wall, 1e-3)),
           f"{rss / 1024:.0f} MB"]  # fmt: skip
    note = (
        f"- {at_cap}: `agentout run` {seconds(wall)} (bound {YES_BOUND:g} s), peak "
        f"{rss / 1024:.0f} MB (bound 100 MB), stored {held / (1 << 20):.1f} MiB (bound "
        f"{cap >> 20} MiB and a line), every byte and line counted (`capped={size} bytes, "
        f"{size // 2} lines`): {'yes' if exact else 'NO'} — {verdict(good)}"
    )
    return good, row, note


if __name__ == "__main__":
    print(main())
