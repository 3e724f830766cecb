"""A held-out corpus: ten everyday commands, other invocations than the tuning corpus
(bench/shell/cases.py) where the workspace allows, and a build script no reducer knows;
plus the planted secrets. Measured by bench/bench_claude.py in the real Claude Code client.

Six cases exit 0; four fail (Claude Code cuts a failing command's output to 10,000
characters; agentout's functions in its shell reduce them where it captures them).
"""

from __future__ import annotations

from pathlib import Path

from shell import facts_of as f
from shell.cases import Case, _case
from shell.repo_files import PYTEST_FILES

BUILD_ERRORS = 7
_BUILD_SCRIPT = '''"""A project's build script: progress for every unit, seven errors, exit 1."""
import sys

ERRORS = {
    1803: "src/net/socket.c:214: error: 'SO_REUSEPORT' undeclared",
    6020: "src/net/dns.c:88: error: implicit declaration of function 'res_ninit'",
    9411: "src/store/page.c:1021: error: too many arguments to function 'page_flush'",
    14002: "src/store/index.c:77: error: unknown type name 'index_key_t'",
    17788: "src/api/routes.c:412: error: 'struct request' has no member named 'deadline'",
    21005: "src/api/auth.c:39: error: expected ';' before 'return'",
    24990: "src/main.c:12: error: conflicting types for 'main'",
}
for n in range(26000):
    unit = f"src/gen/unit_{n:05d}.c"
    print(f"[{n:05d}/26000] CC {unit} -> build/obj/unit_{n:05d}.o ({n * 7919 % 997} symbols)")
    if n in ERRORS:
        print(f"ERROR {ERRORS[n]}")
print("build failed: 7 errors")
sys.exit(1)
'''

BUILD = f.grab(("error", r"^ERROR (\S+?):(\d+): error: (.+?)\s*$"))
DEFS = f.grab(("definition", r"^\s*(?:async )?(?:def|class) (\w+)"))

HELD_OUT: tuple[Case, ...] = (
    _case("git-status", "git", "repo", "git status", f.GIT_STATUS),
    _case("git-log", "git", "repo", "git log -n 12", f.GIT_LOG),
    _case("git-diff-cached", "git", "repo", "git diff --cached", f.GIT_DIFF),
    _case("ls-la", "files", "repo", "ls -la src/agentout/agents", f.LS_LONG),
    _case("grep", "search", "repo", f"grep -rn {f.PATTERN} src/agentout/cli", f.SEARCH),
    _case("git-show-stat", "git", "repo", "git show --stat HEAD~1", f.GIT_LOG_STAT),
    _case(
        "pytest",
        "tests",
        "repo",
        ("python", "-m", "pytest", "-q", *PYTEST_FILES),
        f.PYTEST_QUIET,
        env=(("PYTHONPATH", "src"),),
    ),
    _case("build-script", "build", "heldout", "python3 build.py", BUILD),
    _case("ruff", "lint", "repo", "ruff check --select E,F,W src", f.RUFF),
    _case("mypy", "lint", "repo", "mypy scripts/sizes.py", f.MYPY),
)

# Planted credentials, as an agent's commands print them (docs/secrets.md: the kinds).
SECRET_ENV = {
    "GITHUB_TOKEN": "ghp_" + "7fK2mQ9xLpR4sT8vW1yZ3bN6cD0eF5gH2jK4",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "HELDOUTKEY1",
    "STRIPE_API_KEY": "sk_live_" + "51HeldOut9fXq2LmN8pR4sT7vW0yZ",
}
SECRET_FILES = {
    ".env": "DEBUG=1\nDATABASE_URL=postgres://app:Tr0ub4dor-and-3@db.internal:5432/app\n"
    "SESSION_SECRET=c29tZSBzZXNzaW9uIHNlY3JldCBmb3IgdGhlIGJlbmNo\n",
    ".npmrc": "registry=https://registry.npmjs.org/\n"
    "//registry.npmjs.org/:_authToken=npm_" + "Hx7Qm2Lp9Rt4Sv8Wy1Zb3Nc6Dd0Ef5Gh2Jk4\n",
    "api.json": '{"service": "billing", "auth": {"token": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9'
    ".eyJzdWIiOiJoZWxkLW91dCIsIm5hbWUiOiJiZW5jaCIsImlhdCI6MTUxNjIzOTAyMn0"
    '.Wq8mN2pR4sT7vX0yZ3bC6dE9fG1hJ4kL7mN0pQ3rS6t"}}\n',
    "deploy/key.pem": "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join(
        f"MIIEpAIBAAKCAQEA{n:02d}heldoutPEMbodyLine0123456789abcdefghijklmnopqrstu"
        for n in range(12)
    )
    + "\n-----END RSA PRIVATE KEY-----\n",
}
SECRET_VALUES = (
    *SECRET_ENV.values(),
    "Tr0ub4dor-and-3",
    "c29tZSBzZXNzaW9uIHNlY3JldCBmb3IgdGhlIGJlbmNo",
    "npm_Hx7Qm2Lp9Rt4Sv8Wy1Zb3Nc6Dd0Ef5Gh2Jk4",
    "Wq8mN2pR4sT7vX0yZ3bC6dE9fG1hJ4kL7mN0pQ3rS6t",
    "05heldoutPEMbodyLine0123456789abcdefghijklmnopqrstu",
)
SECRET_COMMANDS = (
    "env",
    "printenv",
    "printenv GITHUB_TOKEN",
    "cat .env",
    "cat .npmrc",
    "cat api.json",
    "cat deploy/key.pem",
    "grep -rn -i secret .",
)


def prepare(root: Path) -> Path:
    """The build script's project and the files holding planted secrets, under ``root``."""
    place = root / "heldout"
    place.mkdir(exist_ok=True)
    (place / "build.py").write_text(_BUILD_SCRIPT, encoding="utf-8")
    for name, text in SECRET_FILES.items():
        path = place / "secrets" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return place


# -- everyday commands that succeed with large output (issue 27's held-out signal set) ------

SIGNAL_LOG_LINES = 20_000
_GREP = "if not"  # 479 matches in this project's sources, give or take
_GREP_MATCH = f.grab(("match", r"^([^:\n]+):(\d+):"))
_LOG_P = f.grab(f.COMMIT, f.SUBJECT, f.DIFF_FILE)
_PIP_LIST = f.grab(("package", r"^([A-Za-z0-9][\w.-]*)\s+\d\S*\s*$"))
_HEADINGS = f.grab(("heading", r"^#+ (\S.*?)\s*$"))

# Every case reads a fixed revision of this project (main before the signal work), checked
# out in its own folder, so the figures do not move with each new commit (pip list aside).
SIGNAL_REVISION = "7246ba0"
SIGNAL_TREE = "signal"

SIGNAL: tuple[Case, ...] = (
    _case("cat-source", "files", SIGNAL_TREE, "cat src/agentout/redact/_scan.py", DEFS),
    _case("git-log-patch", "git", SIGNAL_TREE, f"git log -p -n 5 {SIGNAL_REVISION}", _LOG_P),
    _case("grep-many", "search", SIGNAL_TREE, ("grep", "-rn", _GREP, "src/agentout"), _GREP_MATCH),
    _case(
        "pytest-collect",
        "tests",
        SIGNAL_TREE,
        (
            "python",
            "-m",
            "pytest",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "tests/formats",
            "tests/sources",
        ),
        f.PYTEST_COLLECT,
        env=(("PYTHONPATH", "src"),),
    ),
    _case("big-log", "logs", "logs", "cat signal.log", f.APP_LOG),
    _case("find-py", "files", SIGNAL_TREE, ("find", "src", "-name", "*.py"), f.FIND),
    _case("ls-la-read", "files", SIGNAL_TREE, "ls -la src/agentout/redact", f.LS_LONG),
    _case("git-show", "git", SIGNAL_TREE, f"git show {SIGNAL_REVISION}~1", f.GIT_SHOW),
    _case(
        "git-diff-stat",
        "git",
        SIGNAL_TREE,
        f"git diff --stat {SIGNAL_REVISION}~4 {SIGNAL_REVISION}",
        f.GIT_DIFF_STAT,
    ),
    _case("pip-list", "generic", SIGNAL_TREE, "python -m pip list", _PIP_LIST),
    _case("cat-readme", "files", SIGNAL_TREE, "cat README.md", _HEADINGS),
)
