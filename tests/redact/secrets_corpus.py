"""Secret-bearing commands, run for real in a temporary directory with planted secrets.

Every planted value is made here, at test time, with a random body in the shape of its
format (so no credential-looking string is ever committed, and scanners have nothing to
flag). ``build(root, split)`` writes the files a split needs and returns its cases;
``output(case)`` runs one and returns what it printed (stdout and stderr together, as an
agent's shell shows them). Tests at any level reuse it: the library's redaction now, and
``run``/``show``/MCP end to end.

Two splits of the same kinds of command: ``"tuning"`` (the rules were developed against
it) and ``"held-out"`` (other files, names, layouts and commands, not tuned on).
"""

from __future__ import annotations

import base64
import contextlib
import http.server
import json
import os
import random
import string
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Case", "build", "output", "planted_tokens", "serving"]

_ALNUM = string.ascii_letters + string.digits
_UPPER = string.ascii_uppercase + string.digits
_B64 = string.ascii_letters + string.digits + "+/"
_URLSAFE = string.ascii_letters + string.digits + "-_"


@dataclass(frozen=True)
class Case:
    name: str
    command: list[str]
    cwd: Path
    env: dict[str, str]  # the whole environment of the command (and of the redactor)
    planted: tuple[str, ...]  # values that must not survive redaction
    stdin: bytes = b""
    # Planted values a redactor built without this environment must still catch (their
    # format or their context gives them away).
    by_format: tuple[str, ...] = field(default=())


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def planted_tokens(rng: random.Random) -> dict[str, str]:
    """One value of each format the issue names, random inside its shape."""
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(json.dumps({"sub": _pick(rng, _ALNUM, 12), "iat": 1700000000}).encode())
    return {
        "github": "ghp_" + _pick(rng, _ALNUM, 36),
        "github-fine-grained": "github_pat_"
        + _pick(rng, _ALNUM, 22)
        + "_"
        + _pick(rng, _ALNUM, 59),
        "gitlab": "glpat-" + _pick(rng, _URLSAFE, 20),
        "aws-access-key": "AKIA" + _pick(rng, _UPPER, 16),
        "aws-secret-key": _pick(rng, _B64, 40),
        "anthropic": "sk-ant-api03-" + _pick(rng, _URLSAFE, 93) + "AA",
        "openai": "sk-proj-" + _pick(rng, _URLSAFE, 74) + "T3BlbkFJ" + _pick(rng, _URLSAFE, 74),
        "slack": f"xoxb-{rng.randrange(10**11, 10**12)}-{rng.randrange(10**12, 10**13)}-"
        + _pick(rng, _ALNUM, 24),
        "stripe": "sk_live_" + _pick(rng, _ALNUM, 99),
        "google": "AIza" + _pick(rng, _URLSAFE, 35),
        "jwt": f"{header}.{payload}.{_pick(rng, _URLSAFE, 43)}",
        "npm": "npm_" + _pick(rng, _ALNUM, 36),
        "password": _pick(rng, _ALNUM, 10) + "!" + _pick(rng, _ALNUM, 5),
        "url-password": _pick(rng, _ALNUM, 14),
        "bearer": _pick(rng, _URLSAFE, 40),
    }


def _pem_body(rng: random.Random, lines: int = 12) -> list[str]:
    body = [_pick(rng, _B64, 64) for _ in range(lines)]
    return [*body, _pick(rng, _B64, 28) + "=="]


def _key_block(label: str, body: list[str]) -> str:
    return "\n".join([f"-----BEGIN {label}-----", *body, f"-----END {label}-----"]) + "\n"


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=_clean_env())


def _clean_env() -> dict[str, str]:
    keep = ("PATH", "LANG", "LC_ALL", "HOME", "TMPDIR", "SYSTEMROOT")
    keep += ("AGENTOUT_HOOK_SERVER", "XDG_RUNTIME_DIR")  # where a warm server may run, if at all
    env = {k: v for k, v in os.environ.items() if k in keep}
    env.setdefault("PATH", "/usr/bin:/bin")
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    env["GIT_AUTHOR_NAME"] = env["GIT_COMMITTER_NAME"] = "Agent"
    env["GIT_AUTHOR_EMAIL"] = env["GIT_COMMITTER_EMAIL"] = "agent@example.com"
    return env


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # quiet
        pass


@contextlib.contextmanager
def serving(root: Path) -> Iterator[int]:
    """A real HTTP server on loopback serving ``root``; yields its port."""

    def handler(*args: object, **kwargs: object) -> _Handler:
        return _Handler(*args, directory=str(root), **kwargs)  # type: ignore[arg-type]

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1]
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def build(
    root: Path, split: str = "tuning", *, port: int = 0, seed: int | None = None
) -> list[Case]:
    """Write the files of ``split`` under ``root`` and return its cases.

    ``port`` is a loopback server serving ``root / "api"`` (see ``serving``); the API
    cases need it.
    """
    if split not in ("tuning", "held-out"):
        raise ValueError(f"no such split: {split!r}")
    rng = random.Random(seed if seed is not None else (1 if split == "tuning" else 2))
    t = planted_tokens(rng)
    root.mkdir(parents=True, exist_ok=True)
    return _tuning(root, t, rng, port) if split == "tuning" else _held_out(root, t, rng, port)


def _tuning(root: Path, t: dict[str, str], rng: random.Random, port: int) -> list[Case]:
    base = _clean_env()
    env = {
        **base,
        "GH_TOKEN": t["github"],
        "GITHUB_PAT": t["github-fine-grained"],
        "GITLAB_TOKEN": t["gitlab"],
        "AWS_ACCESS_KEY_ID": t["aws-access-key"],
        "AWS_SECRET_ACCESS_KEY": t["aws-secret-key"],
        "AWS_REGION": "eu-west-1",
        "ANTHROPIC_API_KEY": t["anthropic"],
        "OPENAI_API_KEY": t["openai"],
        "SLACK_BOT_TOKEN": t["slack"],
        "STRIPE_SECRET_KEY": t["stripe"],
        "GOOGLE_API_KEY": t["google"],
        "SESSION_JWT": t["jwt"],
        "NPM_TOKEN": t["npm"],
        "DB_PASSWORD": t["password"],
    }
    everything = tuple(v for k, v in t.items() if k not in ("url-password", "bearer"))
    cases = [
        Case("env", ["env"], root, env, everything, by_format=everything),
        Case("printenv", ["printenv"], root, env, everything, by_format=everything),
        Case(
            "printenv one",
            ["printenv", "GH_TOKEN", "DB_PASSWORD", "AWS_SECRET_ACCESS_KEY"],
            root,
            env,
            (t["github"], t["password"], t["aws-secret-key"]),
            by_format=(t["github"],),
        ),
        Case(
            "env in a compound command",
            ["sh", "-c", 'cd . && env | sort && echo "token is ${GH_TOKEN:+set}"'],
            root,
            env,
            everything,
            by_format=everything,
        ),
    ]
    project = root / "project"
    (project / "config").mkdir(parents=True, exist_ok=True)
    (project / ".env").write_text(
        "# local settings\n"
        f"DATABASE_URL=postgres://app:{t['url-password']}@localhost:5432/app\n"
        f"DB_PASSWORD={t['password']}\n"
        f'export STRIPE_SECRET_KEY="{t["stripe"]}"\n'
        f"OPENAI_API_KEY='{t['openai']}'\n"
        f"AWS_SECRET_ACCESS_KEY={t['aws-secret-key']}\n"
        "DEBUG=true\nPORT=8080\n"
    )
    cases.append(
        Case(
            "cat .env",
            ["cat", ".env"],
            project,
            base,
            (t["url-password"], t["password"], t["stripe"], t["openai"], t["aws-secret-key"]),
            by_format=(
                t["url-password"],
                t["password"],
                t["stripe"],
                t["openai"],
                t["aws-secret-key"],
            ),
        )
    )
    (project / "config" / ".npmrc").write_text(
        f"//registry.npmjs.org/:_authToken={t['npm']}\nregistry=https://registry.npmjs.org/\n"
    )
    (project / "config" / "settings.json").write_text(
        json.dumps(
            {
                "api": {"base_url": "https://api.example.com", "api_token": t["gitlab"]},
                "slack": {"webhook_token": t["slack"]},
                "retries": 3,
            },
            indent=2,
        )
        + "\n"
    )
    (project / "config" / "app.ini").write_text(
        "[database]\nhost = db.internal\nuser = app\n"
        f"password = {t['password']}\n\n[auth]\ntoken_ttl = 3600\n"
        f"secret_key = {t['aws-secret-key']}\n"
    )
    (project / "config" / "deploy.yaml").write_text(
        "deploy:\n  region: eu-west-1\n"
        f"  google_api_key: {t['google']}\n"
        f"  github_token: {t['github']}\n"
    )
    grep_values = (
        t["npm"],
        t["gitlab"],
        t["slack"],
        t["password"],
        t["aws-secret-key"],
        t["google"],
        t["github"],
    )
    cases.append(
        Case(
            "grep -rn token",
            ["grep", "-rniE", "token|password|secret|key", "config"],
            project,
            base,
            grep_values,
            by_format=grep_values,
        )
    )
    api = root / "api"
    api.mkdir(exist_ok=True)
    (api / "token.json").write_text(
        json.dumps(
            {
                "access_token": t["bearer"],
                "token_type": "Bearer",
                "expires_in": 3600,
                "id_token": t["jwt"],
                "scope": "repo read:org",
            }
        )
        + "\n"
    )
    cases.append(
        Case(
            "JSON API response with a bearer token",
            [
                "curl",
                "-sS",
                "-v",
                "-H",
                f"Authorization: Bearer {t['bearer']}",
                f"http://127.0.0.1:{port}/token.json",
            ],
            root,
            base,
            (t["bearer"], t["jwt"]),
            by_format=(t["bearer"], t["jwt"]),
        )
    )
    repo = root / "repo"
    repo.mkdir(exist_ok=True)
    _git(repo, "init", "-q")
    _git(
        repo,
        "remote",
        "add",
        "origin",
        f"https://deploy:{t['url-password']}@git.example.com/team/app.git",
    )
    cases.append(
        Case(
            "URL with a password",
            ["git", "remote", "-v"],
            repo,
            base,
            (t["url-password"],),
            by_format=(t["url-password"],),
        )
    )
    keys = root / "keys"
    keys.mkdir(exist_ok=True)
    body = _pem_body(rng)
    (keys / "id_rsa").write_text(_key_block("RSA PRIVATE KEY", body))
    cases.append(
        Case(
            "cat a private key",
            ["cat", "keys/id_rsa"],
            root,
            base,
            tuple(body),
            by_format=tuple(body),
        )
    )
    return cases


def _held_out(root: Path, t: dict[str, str], rng: random.Random, port: int) -> list[Case]:
    base = _clean_env()
    env = {
        **base,
        "GITHUB_TOKEN": t["github"],
        "CI_JOB_TOKEN": t["gitlab"],
        "GITHUB_FINE_GRAINED_PAT": t["github-fine-grained"],
        "AWS_SESSION_TOKEN": t["aws-secret-key"],
        "AWS_ACCESS_KEY_ID": t["aws-access-key"],
        "CLAUDE_API_KEY": t["anthropic"],
        "OPENAI_KEY": t["openai"],
        "SLACK_TOKEN": t["slack"],
        "STRIPE_API_KEY": t["stripe"],
        "MAPS_API_KEY": t["google"],
        "AUTH_JWT_SECRET": t["jwt"],
        "NODE_AUTH_TOKEN": t["npm"],
        "POSTGRES_PASSWORD": t["password"],
    }
    everything = tuple(v for k, v in t.items() if k not in ("url-password", "bearer"))
    cases = [
        Case(
            "env -0 | tr",
            ["sh", "-c", "env -0 | tr '\\0' '\\n' | sort"],
            root,
            env,
            everything,
            by_format=everything,
        ),
        Case("set", ["bash", "-c", "set"], root, env, everything, by_format=everything),
        Case(
            "python prints os.environ",
            ["python3", "-c", "import os; print(dict(os.environ))"],
            root,
            env,
            everything,
            by_format=everything,
        ),
        Case(
            "printenv one",
            ["printenv", "POSTGRES_PASSWORD"],
            root,
            env,
            (t["password"],),
        ),
    ]
    app = root / "app"
    app.mkdir(parents=True, exist_ok=True)
    (app / ".env.production").write_text(
        f"SECRET_KEY={t['aws-secret-key']}\n"
        f"REDIS_URL=redis://default:{t['url-password']}@cache:6379/0\n"
        f'ANTHROPIC_API_KEY="{t["anthropic"]}"\n'
        f"MAIL_PASSWORD={t['password']}\n"
        "LOG_LEVEL=info\n"
    )
    dotenv = (t["aws-secret-key"], t["url-password"], t["anthropic"], t["password"])
    cases.append(
        Case("cat .env.production", ["cat", ".env.production"], app, base, dotenv, by_format=dotenv)
    )
    (app / "docker-compose.yml").write_text(
        "services:\n  web:\n    image: app:latest\n    environment:\n"
        f"      - STRIPE_API_KEY={t['stripe']}\n"
        f"      - GITHUB_TOKEN={t['github']}\n"
        f"      POSTGRES_PASSWORD: {t['password']}\n"
    )
    (app / "config.toml").write_text(
        "[server]\nport = 8000\n\n[secrets]\n"
        f'api_key = "{t["google"]}"\n'
        f'jwt_secret = "{t["jwt"]}"\n'
        f'npm_token = "{t["npm"]}"\n'
    )
    grep_values = (t["stripe"], t["github"], t["password"], t["google"], t["jwt"], t["npm"])
    cases.append(
        Case(
            "grep -rn over config files",
            [
                "grep",
                "-rn",
                "-i",
                "-e",
                "key",
                "-e",
                "token",
                "-e",
                "password",
                "-e",
                "secret",
                ".",
            ],
            app,
            base,
            grep_values,
            by_format=grep_values,
        )
    )
    api = root / "api"
    api.mkdir(exist_ok=True)
    (api / "session").write_text(
        json.dumps(
            {"user": "bob", "session": {"refresh_token": t["bearer"], "jwt": t["jwt"]}},
            indent=2,
        )
        + "\n"
    )
    cases.append(
        Case(
            "API response, pretty JSON",
            ["curl", "-s", "-i", f"http://127.0.0.1:{port}/session"],
            root,
            base,
            (t["bearer"], t["jwt"]),
            by_format=(t["bearer"], t["jwt"]),
        )
    )
    repo = root / "repo"
    repo.mkdir(exist_ok=True)
    _git(repo, "init", "-q")
    url = f"https://oauth2:{t['url-password']}@gitlab.example.com/group/project.git"
    _git(repo, "config", "remote.upstream.url", url)
    cases.append(
        Case(
            "git config --list",
            ["git", "config", "--list", "--local"],
            repo,
            base,
            (t["url-password"],),
            by_format=(t["url-password"],),
        )
    )
    body = _pem_body(rng, lines=8)
    (root / "service-account.json").write_text(
        json.dumps(
            {
                "type": "service_account",
                "private_key_id": _pick(rng, string.hexdigits.lower(), 40),
                "private_key": _key_block("PRIVATE KEY", body),
                "client_email": "bot@project.iam.example.com",
            },
            indent=2,
        )
        + "\n"
    )
    cases.append(
        Case(
            "a service account key",
            ["cat", "service-account.json"],
            root,
            base,
            tuple(body),
            by_format=tuple(body),
        )
    )
    return cases


def output(case: Case, timeout: float = 30) -> bytes:
    """Run ``case`` for real and return its stdout and stderr, interleaved as printed."""
    done = subprocess.run(
        case.command,
        cwd=case.cwd,
        env=case.env,
        input=case.stdin,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=timeout,
        check=False,
    )
    return done.stdout
