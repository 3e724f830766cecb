"""The secret formats agentout looks for: read from detect-secrets, plus what it lacks.

Each ``Rule`` is a Python regular expression that finds one kind of secret exactly, and a
``candidate``: an RE2 expression that matches wherever the exact one does (lookarounds and
back-references removed), so one linear-time RE2 pass over a chunk finds every line worth
a closer look.

Most rules come from detect-secrets' plugin classes, read from the installed version: the
``denylist`` of each regex-based detector that names a credential format, the keyword
detector's quoted-assignment expressions (its default for text of no known file type), and
the private key headers. Its high-entropy, IP-address and prefix-less detectors are left
out: they match commit hashes, checksums and other facts. agentout adds the formats that
version lacks (``ADDED``), the bodies of private key blocks, ``Authorization`` headers and
``KEY=value`` assignments whose key names a secret.

Importing detect-secrets costs about a fifth of a second, more than a small command's whole
budget, so the rules read from it are kept in agentout's cache directory, keyed by the
files they were read from, and read back from there by every later process.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "ADDED",
    "EXCLUDED",
    "PLUGINS",
    "Rule",
    "RuleSet",
    "load_rules",
    "read_detect_secrets",
]

# Characters a token's body is made of: a match is extended over them, so a longer variant
# of a format (OpenAI project keys, newer Stripe keys) is hidden whole, never cut.
TOKEN_CHARS = r"[A-Za-z0-9_\-]"
JWT_CHARS = r"[A-Za-z0-9_\-.+/=]"

# detect-secrets detectors used, by class name: (marker kind, whether the expression's
# last capture group is the secret rather than the whole match).
PLUGINS: dict[str, tuple[str, bool]] = {
    "AWSKeyDetector": ("aws-key", True),
    "AzureStorageKeyDetector": ("azure-storage-key", False),
    "BasicAuthDetector": ("url-password", True),
    "GitHubTokenDetector": ("github-token", False),
    "GitLabTokenDetector": ("gitlab-token", False),
    "JwtTokenDetector": ("jwt", False),
    "NpmDetector": ("npm-token", True),
    "OpenAIDetector": ("openai-key", False),
    "PypiTokenDetector": ("pypi-token", False),
    "SendGridDetector": ("sendgrid-key", False),
    "SlackDetector": ("slack-token", False),
    "SquareOAuthDetector": ("square-secret", False),
    "StripeDetector": ("stripe-key", False),
}
# Detectors read another way, and those left out with the reason (docs/secrets.md).
EXCLUDED: dict[str, str] = {
    "KeywordDetector": "used: its quoted-assignment expressions (see keyword rules)",
    "PrivateKeyDetector": "used: its header names start a private key block",
    "ArtifactoryDetector": "'AP' and one hex digit then 8 letters also starts ordinary words",
    "Base64HighEntropyString": "every base64 checksum and encoded blob is high-entropy",
    "HexHighEntropyString": "every commit hash and sha256 checksum is high-entropy",
    "CloudantDetector": "a keyword rule for one vendor; the keyword rules cover it",
    "DiscordBotTokenDetector": "no fixed prefix: any three dotted base64 runs match",
    "IbmCloudIamDetector": "a keyword rule for one vendor; the keyword rules cover it",
    "IbmCosHmacDetector": "a keyword rule for one vendor; the keyword rules cover it",
    "IPPublicDetector": "an IP address is a fact an agent needs, not a secret",
    "MailchimpDetector": "any 32 lower-case alphanumerics before '-usN' match",
    "SoftlayerDetector": "a keyword rule for one vendor; the keyword rules cover it",
    "TelegramBotTokenDetector": "no fixed prefix: digits, ':' and 35 letters match",
    "TwilioKeyDetector": "'AC' or 'SK' then 32 lower-case alphanumerics also match hashes",
}
# Formats detect-secrets 1.5 lacks: (kind, exact expression).
ADDED: tuple[tuple[str, str], ...] = (
    ("github-token", r"github_pat_[A-Za-z0-9_]{22,}"),
    ("anthropic-key", r"sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_\-]{20,}"),
    ("openai-key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{20,}"),
    ("stripe-key", r"[rs]k_(?:live|test)_[0-9a-zA-Z]{24,}"),
    ("google-api-key", r"AIza[0-9A-Za-z_\-]{35}"),
    ("npm-token", r"npm_[A-Za-z0-9]{36}"),
)
# Private key blocks detect-secrets' header list lacks.
ADDED_KEY_HEADERS = ("BEGIN ENCRYPTED PRIVATE KEY",)
# Bump when the reading below changes, so caches written by older code are not used.
_READER_VERSION = "1"
_CACHE_ENV = "AGENTOUT_CACHE_DIR"
_LOOKAROUND = re.compile(r"\(\?<?[=!](?:[^()\\]|\\.)*\)")
_LONG_REPEAT = re.compile(r"\{(\d+),\d{4,}\}")


@dataclass(frozen=True)
class Rule:
    """One kind of secret: its exact expression and the RE2 candidate that finds it."""

    kind: str
    pattern: str  # Python ``re`` syntax, compiled as bytes
    ignore_case: bool
    group: int  # 0: the whole match is the secret; N: group N; -1: the last non-empty group
    candidate: str  # RE2 syntax; matches at least wherever ``pattern`` does
    extend: str = ""  # a character class the secret is extended over, to its end
    check: str = ""  # "jwt": the match must decode as a JWT; "keyword": a keyword's value
    source: str = "agentout"


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]
    keywords: tuple[str, ...]  # detect-secrets' keyword denylist (regex fragments)
    key_headers: tuple[str, ...]  # "BEGIN RSA PRIVATE KEY", ...
    origin: str  # which detect-secrets the rules were read from

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> RuleSet:
        data = json.loads(text)
        return cls(
            rules=tuple(Rule(**rule) for rule in data["rules"]),
            keywords=tuple(data["keywords"]),
            key_headers=tuple(data["key_headers"]),
            origin=data["origin"],
        )


def re2_candidate(pattern: str, ignore_case: bool) -> str:
    """``pattern`` without its lookarounds, and with repetitions over RE2's limit of 1000
    left open: RE2 syntax that matches wherever ``pattern`` does."""
    candidate = _wide_spaces(_LOOKAROUND.sub("", pattern))
    candidate = _LONG_REPEAT.sub(lambda m: "{" + m.group(1) + ",}", candidate)
    return f"(?i:{candidate})" if ignore_case else f"(?:{candidate})"


_SPACE = r"\t-\r \x1c-\x1f"  # what Python's \s matches in bytes; RE2's \s is narrower


def _wide_spaces(pattern: str) -> str:
    r"""``\s`` as Python means it (RE2's lacks \v and \x1c-\x1f), except inside a negated
    class, where the narrower one excludes less and so still matches more."""
    out: list[str] = []
    i, klass = 0, ""  # klass: "" outside a class, "[" inside one, "^" inside a negated one
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            pair = pattern[i : i + 2]
            if pair == r"\s" and klass != "^":
                out.append(_SPACE if klass else f"[{_SPACE}]")
            else:
                out.append(pair)
            i += 2
            continue
        if c == "[" and not klass:
            klass = "^" if pattern[i + 1 : i + 2] == "^" else "["
            step = 2 if klass == "^" else 1
            out.append(pattern[i : i + step])
            i += step
            if pattern[i : i + 1] == "]":
                out.append("]")
                i += 1
            continue
        if c == "]" and klass:
            klass = ""
        out.append(c)
        i += 1
    return "".join(out)


def _rule(kind: str, compiled: re.Pattern[str], group: bool, source: str) -> Rule:
    ignore_case = bool(compiled.flags & re.IGNORECASE)
    group = group and compiled.groups > 0
    extend = "" if group else JWT_CHARS if kind == "jwt" else TOKEN_CHARS
    return Rule(
        kind=kind,
        pattern=compiled.pattern,
        ignore_case=ignore_case,
        group=-1 if group else 0,
        candidate=re2_candidate(compiled.pattern, ignore_case),
        extend=extend,
        check="jwt" if kind == "jwt" else "",
        source=source,
    )


def read_detect_secrets() -> RuleSet:
    """The rules, read from the installed detect-secrets' plugin classes (slow import)."""
    from detect_secrets import __version__ as version
    from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
    from detect_secrets.plugins import keyword
    from detect_secrets.plugins.private_key import PrivateKeyDetector

    mapping: Any = get_mapping_from_secret_type_to_class()
    classes: dict[str, Any] = {plugin.__name__: plugin for plugin in mapping.values()}
    rules: list[Rule] = []
    for name in sorted(PLUGINS):
        kind, group = PLUGINS[name]
        for compiled in classes[name].denylist:
            rules.append(_rule(kind, compiled, group, f"detect-secrets {name}"))
    for kind, pattern in ADDED:
        rules.append(_rule(kind, re.compile(pattern), False, "agentout"))
    keywords = tuple(keyword.DENYLIST)
    candidate = "(?i:" + "|".join(keywords) + ")"
    # Its default for text of no known type: the value must be quoted.
    for compiled, group_number in keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP.items():
        rules.append(
            Rule(
                kind="keyword",
                pattern=compiled.pattern,
                ignore_case=bool(compiled.flags & re.IGNORECASE),
                group=group_number,
                candidate=candidate,
                check="keyword",
                source="detect-secrets KeywordDetector",
            )
        )
    headers = tuple(
        p.pattern for p in PrivateKeyDetector.denylist if p.pattern.startswith("BEGIN ")
    )
    return RuleSet(
        rules=tuple(rules),
        keywords=keywords,
        key_headers=headers + ADDED_KEY_HEADERS,
        origin=f"detect-secrets {version.VERSION}",
    )


def _fingerprint() -> str | None:
    """A digest of the files the rules are read from, found without importing them."""
    spec = importlib.util.find_spec("detect_secrets")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    digest = hashlib.sha256(_READER_VERSION.encode())
    sources = [Path(__file__), root / "__version__.py", *sorted((root / "plugins").glob("*.py"))]
    for path in sources:
        try:
            info = path.stat()
        except OSError:
            return None
        digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


def _cache_dir() -> Path:
    configured = os.environ.get(_CACHE_ENV)
    if configured:
        return Path(configured).expanduser() / "redact"
    import platformdirs  # deferred: most commands never need it

    return Path(platformdirs.user_cache_dir("agentout")) / "redact"


def load_rules(cache: bool = True) -> RuleSet:
    """The rule set: from the cache when it was read from these very files, else read
    from detect-secrets (and cached for the next process; a cache that cannot be written
    is only slower)."""
    fingerprint = _fingerprint() if cache else None
    path = _cache_dir() / f"rules-{fingerprint}.json" if fingerprint else None
    if path is not None:
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            return RuleSet.from_json(path.read_text(encoding="utf-8"))
    rules = read_detect_secrets()
    if path is not None:
        with contextlib.suppress(OSError):
            _write(path, rules.to_json())
    return rules


def _write(path: Path, text: str) -> None:
    from agentout.spill import SpillError, private_dir

    try:
        private_dir(path.parent, "the redaction rules cache")
    except SpillError as exc:  # an unsafe directory is not used
        raise OSError(str(exc)) from exc
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
