"""A project full of planted secrets, printed the ways that used to get past redaction.

``build(root)`` writes a git repository whose files hold one secret of each kind
``tests/redact/secrets_corpus.py`` plants (random at test time, in the shape of its
format: nothing credential-like is committed), an indented private key in a YAML block
scalar, test ids, JUnit names, notes and JSON lines with secrets in them, and
``LOOK_ALIKES``: sixteen facts an agent needs that look like secrets (commit hashes,
UUIDs, checksums, ``next_page_token``, ``token_type``, ...). ``leaks(data)`` says which
secrets some bytes still hold, however they are coloured, overstruck or escaped in JSON;
``missing(data)`` which look-alikes they lost.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import random
import re
import string
import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

__all__ = ["LOOK_ALIKES", "Project", "build", "leaks", "missing"]


def _corpus() -> ModuleType:
    """tests/redact/secrets_corpus.py, which plants the values."""
    name = "secrets_corpus"
    if name in sys.modules:
        return sys.modules[name]
    path = Path(__file__).resolve().parents[1] / "redact" / "secrets_corpus.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_RNG = random.Random(26)
SECRETS: dict[str, str] = _corpus().planted_tokens(_RNG)
_B64 = string.ascii_letters + string.digits + "+/"
KEY_BODY = ["".join(_RNG.choice(_B64) for _ in range(64)) for _ in range(24)]
KEY_BODY.append("".join(_RNG.choice(_B64) for _ in range(30)) + "==")
SECOND_GITHUB = "ghp_" + "".join(
    _RNG.choice(string.ascii_letters + string.digits) for _ in range(36)
)
SECRETS["github-2"] = SECOND_GITHUB
# URL passwords as the issue writes them: reserved characters, an "@" inside, no user name
URL_PASSWORDS = {
    "url-reserved": ("postgres://app:{}@db/prod", "Passw0rd!2024"),
    "url-at": ("https://deploy:{}@host", "p@ss:w0rd!x"),
    "url-no-user": ("redis://:{}@cache:6379/0", "hunter2hunter2"),
}
SECRETS.update({name: password for name, (_, password) in URL_PASSWORDS.items()})

_HEX = "0123456789abcdef"


def _hex(n: int) -> str:
    return "".join(_RNG.choice(_HEX) for _ in range(n))


_COMMIT = _hex(40)
_INTEGRITY = "sha512-" + "".join(_RNG.choice(_B64) for _ in range(86)) + "=="
# Facts that look like secrets: every one must still be shown.
LOOK_ALIKES = [
    f"commit {_COMMIT}",
    f"merged {_COMMIT[:10]} into main",
    f"request {uuid.UUID(int=_RNG.getrandbits(128), version=4)}",
    f"{hashlib.sha256(b'release').hexdigest()}  release.tar.gz",
    '"next_page_token": "CiAKGjBpNDd2Nmp2Zml2cXRtcGI0ZG9mZGpnZmZoEAE"',
    '"token_type": "Bearer"',
    f'"private_key_id": "{_hex(40)}"',
    "secret_name: db-credentials",
    "token_count=48213",
    f"md5 {hashlib.md5(b'notes').hexdigest()}",
    f'"integrity": "{_INTEGRITY}"',
    "token_endpoint_auth_method: client_secret_basic",
    "API_KEY=${API_KEY}",
    f"image ghcr.io/team/app@sha256:{_hex(64)}",
    "tests/test_api.py::test_token_refresh[case-3] PASSED",
    f"golang.org/x/text v0.14.0 h1:{''.join(_RNG.choice(_B64) for _ in range(43))}=",
]

_ESCAPES = re.compile(
    rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|[ -/]*[0-~]|)|\\u001b\[[0-?]*[ -/]*[@-~]|\\x1b\[[0-?]*[@-~]"
)
_UNSEEN = re.compile(rb"_\x08|(.)\x08(?=\1)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xe2\x80[\x8b-\x8f]")


def shown(data: bytes) -> bytes:
    """``data`` as read: escapes (real or JSON-escaped), overstrikes and controls out."""
    return _UNSEEN.sub(b"", _ESCAPES.sub(b"", data))


def _pieces(value: str) -> list[bytes]:
    """Parts of a value that give it away: its first and last 12 characters (random
    ones: they appear nowhere else by chance)."""
    return [value[:12].encode(), value[-12:].encode()]


def leaks(data: bytes) -> list[str]:
    """The secrets ``data`` still shows (by name), private key lines as ``key:N``."""
    seen = shown(data)
    found = [name for name, value in SECRETS.items() if any(p in seen for p in _pieces(value))]
    found += [f"key:{i}" for i, line in enumerate(KEY_BODY[:-1]) if line[8:28].encode() in seen]
    return found


def missing(data: bytes, facts: list[str] | None = None) -> list[str]:
    """The look-alikes ``data`` should show and does not (its JSON escapes read)."""
    seen = shown(data).replace(b'\\"', b'"')
    return [fact for fact in facts or LOOK_ALIKES if fact.encode() not in seen]


@dataclass(frozen=True)
class Project:
    root: Path
    env: dict[str, str]  # agentout's environment: its own home, store and caches
    state: Path  # where agentout keeps anything: home, store, caches, config


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _env(state: Path) -> dict[str, str]:
    """A clean environment with no secret in it: what is hidden is found by its format
    or its context, never by a value agentout was told."""
    keep = ("PATH", "PYTHONPATH", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT", "VIRTUAL_ENV")
    keep += ("AGENTOUT_HOOK_SERVER", "XDG_RUNTIME_DIR")  # the suite's: no warm server started
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.update(
        HOME=str(state / "home"),
        AGENTOUT_SPILL_DIR=str(state / "store"),
        AGENTOUT_CACHE_DIR=str(state / "cache"),
        AGENTOUT_CONFIG_DIR=str(state / "config"),
        AGENTOUT_LEDGER_SYNC="1",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="Agent",
        GIT_AUTHOR_EMAIL="agent@example.com",
        GIT_COMMITTER_NAME="Agent",
        GIT_COMMITTER_EMAIL="agent@example.com",
        PYTHONDONTWRITEBYTECODE="1",
    )
    return env


def _key_yaml(indent: str) -> str:
    lines = ["-----BEGIN RSA PRIVATE KEY-----", *KEY_BODY, "-----END RSA PRIVATE KEY-----"]
    return "".join(f"{indent}{line}\n" for line in lines)


def build(root: Path) -> Project:
    """The project under ``root / "project"`` and agentout's state under ``root / "state"``."""
    s = SECRETS
    project, state = root / "project", root / "state"
    for folder in ("config", "tests", "vault/sub", "state"):
        (project / folder).mkdir(parents=True, exist_ok=True)
    (state / "home").mkdir(parents=True, exist_ok=True)
    env = _env(state)
    os.environ.setdefault("GIT_CONFIG_NOSYSTEM", "1")
    placeholders = {
        ".env": "GH_TOKEN=changeme\nDB_PASSWORD=changeme\n",
        "config/values.yaml": "replicas: 2\ntls:\n  key: none\n",
        "deploy.env": "API_TOKEN=changeme\n  # step 1\n  # step 2\n  # step 3\n"
        "  # step 4\n  # step 5\nreplicas=1\n",
        "facts.txt": "",
    }
    for name, text in placeholders.items():
        (project / name).write_text(text)
    _git(project, "init", "-q")
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "placeholders")
    (project / ".env").write_text(
        f"GH_TOKEN={s['github']}\n"
        f"GITHUB_PAT={s['github-fine-grained']}\n"
        f"GITLAB_TOKEN={s['gitlab']}\n"
        f"AWS_ACCESS_KEY_ID={s['aws-access-key']}\n"
        f"AWS_SECRET_ACCESS_KEY={s['aws-secret-key']}\n"
        f"ANTHROPIC_API_KEY={s['anthropic']}\n"
        f"OPENAI_API_KEY={s['openai']}\n"
        f"SLACK_BOT_TOKEN={s['slack']}\n"
        f"STRIPE_SECRET_KEY={s['stripe']}\n"
        f"GOOGLE_API_KEY={s['google']}\n"
        f"SESSION={s['jwt']}\n"
        f"NPM_TOKEN={s['npm']}\n"
        f"DB_PASSWORD={s['password']}\n"
        f"DATABASE_URL=postgres://app:{s['url-password']}@db.internal:5432/app\n"
        f"AUTH_HEADER=Authorization: Bearer {s['bearer']}\n"
        + "".join(
            f"URL_{n}={url.format(s[name])}\n"
            for n, (name, (url, _)) in enumerate(URL_PASSWORDS.items())
        )
    )
    (project / "config" / "values.yaml").write_text(
        "replicas: 2\ntls:\n  key: |\n" + _key_yaml("    ") + "  cert: none\n"
    )
    (project / "deploy.env").write_text(
        f"API_TOKEN={SECOND_GITHUB}\n  # step 1\n  # step 2\n  # step 3\n  # step 4\n"
        "  # step 5\nreplicas=1\n"
    )
    (project / "facts.txt").write_text("".join(f"{fact}\n" for fact in LOOK_ALIKES))
    _git(project, "add", ".")
    _git(project, "commit", "-q", "-m", "configure")
    # The working tree changes under the API_TOKEN line: git diff's hunk header quotes it.
    (project / "deploy.env").write_text(
        (project / "deploy.env").read_text().replace("replicas=1", "replicas=3")
    )
    _write_tests(project)
    _write_records(project)
    _write_vault(project)
    (project / f"backup-{s['github']}.tar").write_text("x")
    return Project(project, env, state)


def _write_tests(project: Path) -> None:
    s = SECRETS
    facts = "\n".join(LOOK_ALIKES)
    (project / "tests" / "test_secrets.py").write_text(
        "import pytest\n\n"
        f"def test_token_{s['github']}():\n"
        f"    assert {s['openai']!r} == 'sk-placeholder'\n\n"
        f"@pytest.mark.parametrize('key', [{s['aws-access-key']!r}, {s['stripe']!r}])\n"
        "def test_param(key):\n    assert key == 'x'\n\n"
        "def test_sub(subtests):\n"
        f"    with subtests.test(msg='DB_PASSWORD={s['password']}'):\n"
        "        assert False\n\n"
        "def test_prints():\n"
        f"    print('Authorization: Bearer {s['bearer']}')\n"
        f"    print({facts!r})\n"
        "    assert False\n"
    )
    cases = "".join(
        f'<testcase classname="tests.test_api" name="test_login[{value}]" time="0.01">'
        f'<failure message="token {value} refused">AssertionError: {value}</failure>'
        "</testcase>"
        for value in (s["github"], s["aws-access-key"], s["slack"])
    )
    (project / "report.xml").write_text(
        f'<?xml version="1.0"?><testsuites><testsuite name="pytest" tests="3" failures="3">'
        f"{cases}</testsuite></testsuites>\n"
    )


def _write_records(project: Path) -> None:
    s = SECRETS
    aws = s["aws-access-key"]
    rows = [
        {"level": "error", "msg": f"\x1b[31mauth failed for {s['github']}\x1b[0m", "n": 1},
        {"level": "info", "msg": f"key \x1b[1m{aws[:6]}\x1b[0m{aws[6:]}", "n": 2},
        {"level": "info", "password": s["password"], "n": 3},
        {"level": "info", "dsn": URL_PASSWORDS["url-at"][0].format(s["url-at"]), "n": 3},
        {"level": "debug", "config": _key_yaml(""), "n": 4},
        *({"level": "info", "fact": fact, "n": 5 + i} for i, fact in enumerate(LOOK_ALIKES)),
    ]
    (project / "events.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))


def _write_vault(project: Path) -> None:
    s = SECRETS
    (project / "vault" / "deploy.md").write_text(
        f"---\nid: deploy\ntitle: Deploy with {s['github']}\ntags: [ops]\n---\n"
        f"# Deploy\n\nUse DB_PASSWORD={s['password']} and \x1b[31m{s['slack']}\x1b[0m. "
        f"See [[sub/{SECOND_GITHUB}]].\n\n```yaml\nkey: |\n{_key_yaml('  ')}```\n"
    )
    (project / "vault" / "sub" / f"{SECOND_GITHUB}.md").write_text(
        f"# Other\n\nAWS key {s['aws-access-key']} here; {LOOK_ALIKES[0]}.\n"
    )
