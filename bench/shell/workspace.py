"""The workspace the corpus runs in, made fresh in a private temporary directory.

``repo/``      a clone of this project (its real history) with a new commit, bugs that
               fail tests (one staged), an unstaged change and untracked broken files
``projects/``  small C, Java, Rust, TypeScript/JavaScript and Python projects with errors,
               and a Makefile that builds the first three (bench/shell/projects/)
``logs/``      a ~600 KB build log (gcc on generated C files: ~1,200 near-identical
               warnings and a few real errors), an application log with levels, a JSON
               lines log and a Java service's log
``hostile/``   binary data, invalid UTF-8, carriage-return progress, a traceback
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from shell import repo_files
from shell.tools import Tools

ROOT = Path(__file__).resolve().parents[2]
PROJECTS = Path(__file__).resolve().parent / "projects"
# The date of the corpus's own commit, so its hash depends only on its parent.
COMMIT_DATE = "2025-03-03T09:30:00+00:00"
GITCONFIG = """[user]
\tname = Corpus Agent
\temail = agent@example.com
[init]
\tdefaultBranch = main
[advice]
\tdetachedHead = false
"""
# Variables a command's output may depend on that the corpus keeps from the caller.
_KEPT = ("HOME", "USER", "LOGNAME", "RUSTUP_HOME", "CARGO_HOME", "RUSTUP_TOOLCHAIN", "JAVA_HOME")
# Where a warm server may run (the bench run's own folder), and whether it may.
_KEPT += ("XDG_RUNTIME_DIR", "AGENTOUT_HOOK_SERVER")


@dataclass
class Workspace:
    root: Path
    tools: Tools
    env: dict[str, str]
    notes: list[str] = field(default_factory=list)

    @property
    def repo(self) -> Path:
        return self.root / "repo"


def environment(root: Path, tools: Tools) -> dict[str, str]:
    """A small fixed environment: no colour forced, C.UTF-8, UTC, private config and caches.

    PATH: the extra tools, then this Python's environment (python, pytest, ruff, mypy and
    agentout as this branch installs them), then the caller's PATH.
    """
    env = {name: os.environ[name] for name in _KEPT if name in os.environ}
    home = root / "home"
    path = [*tools.path, str(Path(sys.executable).parent), os.environ.get("PATH", os.defpath)]
    env.update(
        PATH=os.pathsep.join(path),
        LANG="C.UTF-8",
        LC_ALL="C.UTF-8",
        TZ="UTC",
        GIT_CONFIG_GLOBAL=str(root / "gitconfig"),
        GIT_CONFIG_NOSYSTEM="1",
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CACHE_HOME=str(home / "cache"),
        AGENTOUT_SPILL_DIR=str(root / "spill"),
        PYTHONDONTWRITEBYTECODE="1",
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        PIP_NO_INPUT="1",
        CARGO_NET_OFFLINE="true",
        npm_config_update_notifier="false",
        npm_config_cache=str(home / "npm"),
    )
    return env


def _run(argv: list[str], cwd: Path, env: dict[str, str], **extra: str) -> str:
    done = subprocess.run(
        argv,
        cwd=cwd,
        env={**env, **extra},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed in {cwd}: {done.stderr.strip()}")
    return done.stdout


def _write(base: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _repository(ws: Workspace) -> None:
    repo, env = ws.repo, ws.env
    _run(["git", "clone", "--quiet", str(ROOT), str(repo)], ws.root, env)
    _write(repo, repo_files.COMMIT_FILES)
    _run(["git", "add", *repo_files.COMMIT_FILES], repo, env)
    message = f"{repo_files.COMMIT_SUBJECT}\n\n{repo_files.COMMIT_BODY}"
    dates = {"GIT_AUTHOR_DATE": COMMIT_DATE, "GIT_COMMITTER_DATE": COMMIT_DATE}
    _run(["git", "commit", "--quiet", "-m", message], repo, env, **dates)
    staged = list(repo_files.STAGED_FILES)
    for path, text, replacement, stage in repo_files.BUGS:
        target = repo / path
        source = target.read_text(encoding="utf-8")
        if text not in source:
            ws.notes.append(f"bug not injected, `{path}` no longer has `{text}`")
            continue
        target.write_text(source.replace(text, replacement, 1), encoding="utf-8")
        if stage:
            staged.append(path)
    _write(repo, repo_files.STAGED_FILES)
    _run(["git", "add", *staged], repo, env)
    with (repo / "README.md").open("a", encoding="utf-8") as readme:
        readme.write(repo_files.README_APPEND)
    _write(repo, repo_files.UNTRACKED_FILES)


def _projects(ws: Workspace) -> None:
    target = ws.root / "projects"
    shutil.copytree(PROJECTS, target)
    if ws.tools.node_modules is not None:
        (target / "web" / "node_modules").symlink_to(ws.tools.node_modules)


# -- the large build log ------------------------------------------------------------------

MODULES = 24
STEPS = 25
# Real errors, one in each of a few modules: (module, step, broken statement).
_ERRORS = {
    3: (7, "total += frame->weight * undeclared_scale;"),
    8: (20, "total += checksum_of(frame, frame->length, 3);"),
    11: (2, "total += frame->payload.length;"),
    15: (16, "struct frame copy = frame->length;"),
    19: (24, "total += frame->checksum\n    return total;"),
}
_HEADER = """#include <stddef.h>

struct frame {
    unsigned long checksum;
    unsigned long length;
    long weight;
    const unsigned char *payload;
};

unsigned long checksum_of(const struct frame *frame, unsigned long length);
"""


def _module(number: int) -> str:
    parts = ['#include "frame.h"\n']
    broken = _ERRORS.get(number)
    for step in range(STEPS):
        name = f"module_{number:02d}_step_{step:02d}"
        scratch = f"scratch_checksum_accumulator_for_{name}_of_the_frame_decoder_pipeline_stage"
        body = [
            f"    unsigned long {scratch} = frame->checksum * {step + 31}u;",
            "    long total = frame->weight;",
            "    for (unsigned long index = 0; index < frame->length; index++) {",
            "        total += frame->payload[index];",
            "    }",
        ]
        if broken and broken[0] == step:
            body.append(f"    {broken[1]}")
        body.append("    return total;")
        parameter = f"int retry_budget_for_{name}_in_attempts_per_frame_window_limit"
        function = f"decode_and_validate_frame_{name}_checksum"
        signature = f"long {function}(const struct frame *frame, {parameter})"
        parts.append(signature + "\n{\n" + "\n".join(body) + "\n}\n")
    return "\n".join(parts)


def _build_log(ws: Workspace) -> None:
    """``make -k`` over generated C files, its merged output kept as logs/build.log."""
    gen = ws.root / "gen"
    (gen / "src").mkdir(parents=True)
    (gen / "src" / "frame.h").write_text(_HEADER, encoding="utf-8")
    for number in range(MODULES):
        (gen / "src" / f"module_{number:02d}.c").write_text(_module(number), encoding="utf-8")
    objects = " ".join(f"build/module_{n:02d}.o" for n in range(MODULES))
    (gen / "Makefile").write_text(
        f"CFLAGS = -Wall -Wextra -O0\n\nall: {objects}\n\n"
        "build/%.o: src/%.c src/frame.h\n\t@mkdir -p build\n\t$(CC) $(CFLAGS) -c $< -o $@\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        ["make", "-k"],
        cwd=gen,
        env=ws.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        check=False,
    )
    (ws.root / "logs").mkdir(exist_ok=True)
    (ws.root / "logs" / "build.log").write_bytes(done.stdout)


# -- the application log ------------------------------------------------------------------

_SERVICES = ("http", "inventory.sync", "payments.client", "worker.export", "cache")
_WARNINGS = (
    "slow response from inventory-api ({ms} ms)",
    "retrying charge for order {order} (attempt {attempt} of 3)",
    "cache miss ratio {ratio} above 0.40",
)
APP_ERRORS = (
    ("payments.client", "charge failed for order 10492: upstream timeout after 30000 ms"),
    ("inventory.sync", "sku BX-2291 missing in warehouse feed; 14 orders on hold"),
    ("payments.client", "charge failed for order 10517: card declined (do_not_honor)"),
    ("worker.export", "export job 77 crashed"),
    ("http", "POST /api/orders 500 in 2411 ms: IntegrityError on orders_pkey"),
)
_TRACEBACK = """Traceback (most recent call last):
  File "/srv/shop/worker/export.py", line 88, in run
    rows = self.fetch(batch)
  File "/srv/shop/worker/export.py", line 131, in fetch
    return self.db.query(SQL, batch.ids)
psycopg.OperationalError: connection to server at "db.internal", port 5432 failed: \
Connection refused"""


def _app_log(path: Path, lines: int = 1500) -> None:
    rng = random.Random(3)
    errors = {int(lines * (i + 1) / (len(APP_ERRORS) + 1)): e for i, e in enumerate(APP_ERRORS)}
    out = []
    for i in range(lines):
        seconds = 8 * 3600 + i * 2
        stamp = f"2025-03-03 {seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        stamp += f",{rng.randrange(1000):03d}"
        if i in errors:
            name, message = errors[i]
            out.append(f"{stamp} ERROR [{name}] {message}")
            if name == "worker.export":
                out.append(_TRACEBACK)
        elif i == lines - 40:
            out.append(f"{stamp} CRITICAL [worker.export] export queue stalled: 3 jobs failed")
        elif rng.random() < 0.03:
            template = rng.choice(_WARNINGS)
            text = template.format(
                ms=rng.randrange(900, 4000),
                order=rng.randrange(10000, 11000),
                attempt=rng.randrange(1, 4),
                ratio=f"0.{rng.randrange(41, 70)}",
            )
            out.append(f"{stamp} WARNING [{rng.choice(_SERVICES)}] {text}")
        elif rng.random() < 0.2:
            out.append(f"{stamp} DEBUG [cache] hit key=order:{rng.randrange(10000, 11000)}")
        else:
            route = rng.choice(["/api/items", "/api/cart", "/api/orders", "/health"])
            status = rng.choice([200, 200, 200, 201, 204, 304])
            out.append(f"{stamp} INFO [http] GET {route} {status} in {rng.randrange(2, 180)} ms")
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def _json_log(path: Path, lines: int = 300) -> None:
    """JSON lines as structured loggers write them, a few at level error."""
    rng = random.Random(4)
    out = []
    for i in range(lines):
        stamp = f"2025-03-03T10:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randrange(1000):03d}Z"
        if i % 97 == 50:
            level, msg = "error", f"payment webhook rejected: signature mismatch (event {9000 + i})"
        elif rng.random() < 0.05:
            level, msg = "warn", f"queue depth {rng.randrange(500, 900)} above 500"
        else:
            level, msg = "info", f"order {rng.randrange(10000, 11000)} shipped"
        fields = {"ts": stamp, "level": level, "service": "checkout", "msg": msg}
        out.append(json.dumps(fields))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


_JAVA_TRACE = """Exception in thread "export-1" java.lang.IllegalStateException: ledger closed
\tat com.shop.ledger.Ledger.append(Ledger.java:212)
\tat com.shop.worker.Export.flush(Export.java:88)
\tat com.shop.worker.Export.run(Export.java:41)
\tat java.base/java.lang.Thread.run(Thread.java:840)"""


def _logback_log(path: Path, lines: int = 400) -> None:
    """A Java service's log in logback's default layout, with one uncaught exception."""
    rng = random.Random(6)
    out = []
    for i in range(lines):
        stamp = f"2025-03-03 11:{i // 60 % 60:02d}:{i % 60:02d}.{rng.randrange(1000):03d}"
        if i in (120, 260):
            out.append(f"{stamp} [export-1] ERROR c.s.worker.Export - batch {i} failed: timeout")
        elif i == 300:
            out.append(_JAVA_TRACE)
        elif rng.random() < 0.04:
            out.append(
                f"{stamp} [main] WARN c.s.pool.Pool - pool nearly full ({rng.randrange(80, 99)}%)"
            )
        else:
            out.append(
                f"{stamp} [main] INFO c.s.web.Server - served {rng.randrange(1, 90)} requests"
            )
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


# -- hostile output -----------------------------------------------------------------------

_PROGRESS = """import sys, time
for pct in range(0, 101, 5):
    bar = "#" * (pct // 5) + " " * (20 - pct // 5)
    sys.stdout.write(f"\\rDownloading model.bin {pct:3d}% |{bar}| {pct * 0.42:.1f}/42.0 MB")
    sys.stdout.flush()
sys.stdout.write("\\n")
sys.stdout.flush()
print("WARNING: no checksum file for model.bin", file=sys.stderr, flush=True)
print("Saved models/model.bin (42.0 MB)")
"""
_CRASH = """import json


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def main():
    config = load("settings.json")
    return config["retries"]


main()
"""


def _hostile(ws: Workspace) -> None:
    base = ws.root / "hostile"
    base.mkdir()
    rng = random.Random(5)
    blob = b"\x89PNG\r\n\x1a\n" + bytes(rng.randrange(256) for _ in range(1500))
    (base / "logo.png").write_bytes(blob)
    (base / "legacy.txt").write_bytes(
        b"Import of legacy customers\n"
        + "Café Müller: 12 orders\n".encode("latin-1")
        + b"ERROR line 3: invalid byte \xff\xfe in name field\n"
        + "Société Générale: 3 orders\n".encode("latin-1")
        + b"2 records skipped\n"
    )
    (base / "progress.py").write_text(_PROGRESS, encoding="utf-8")
    (base / "crash.py").write_text(_CRASH, encoding="utf-8")
    (base / "settings.json").write_text('{"retries": 3,\n "timeout": 30,\n}\n', encoding="utf-8")


def prepare(root: Path, tools: Tools) -> Workspace:
    """Make every part of the workspace under ``root`` (an empty private directory)."""
    ws = Workspace(root=root, tools=tools, env=environment(root, tools))
    (root / "gitconfig").write_text(GITCONFIG, encoding="utf-8")
    _repository(ws)
    _projects(ws)
    _build_log(ws)
    _app_log(root / "logs" / "app.log")
    _json_log(root / "logs" / "service.jsonl")
    _logback_log(root / "logs" / "worker.log")
    _hostile(ws)
    return ws
