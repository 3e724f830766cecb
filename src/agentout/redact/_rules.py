"""The secret formats agentout looks for: read from detect-secrets, plus what it lacks.

Each ``Rule`` is a Python regular expression that finds one kind of secret exactly, and a
``candidate``: an RE2 expression that matches wherever the exact one does (lookarounds
removed, a back-reference replaced by a copy of its group), so one linear-time RE2 pass
over a chunk finds every line worth a closer look, and few others.

Most rules come from detect-secrets' plugin classes, read from the installed version: the
``denylist`` of each regex-based detector that names a credential format, the keyword
detector's quoted-assignment expressions (its default for text of no known file type), and
the private key headers. Its high-entropy, IP-address and prefix-less detectors are left
out: they match commit hashes, checksums and other facts. agentout adds the formats that
version lacks (``ADDED``), the bodies of private key blocks, ``Authorization`` headers and
``KEY=value`` assignments whose key names a secret (``agentout.redact._scan``).

Importing detect-secrets costs about a fifth of a second, more than a small command's whole
budget, so the rules read from it are kept in agentout's cache directory, keyed by the
files they were read from, and read back from there by every later process (once per
process).
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import Any, NamedTuple

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
_READER_VERSION = "2"
_CACHE_ENV = "AGENTOUT_CACHE_DIR"
_LOOKAROUND = r"\(\?<?[=!](?:[^()\\]|\\.)*\)"
_LONG_REPEAT = r"\{(\d+),\d{4,}\}"
# What Python's \s matches in a line (RE2's \s is narrower); never "\n", as below.
_SPACE = r"\t\x0b-\r \x1c-\x1f"


class Rule(NamedTuple):
    """One kind of secret: its exact expression and the RE2 candidate that finds it."""

    kind: str
    pattern: str  # Python ``re`` syntax, compiled as bytes
    ignore_case: bool
    group: int  # 0: the whole match is the secret; N: group N; -1: the last non-empty group
    candidate: str  # RE2 syntax; matches at least wherever ``pattern`` does
    extend: str = ""  # a character class the secret is extended over, to its end
    check: str = ""  # "jwt": the match must decode as a JWT; "keyword": a keyword's value
    source: str = "agentout"


class RuleSet(NamedTuple):
    rules: tuple[Rule, ...]
    keywords: tuple[str, ...]  # detect-secrets' keyword denylist (regex fragments)
    key_headers: tuple[str, ...]  # "BEGIN RSA PRIVATE KEY", ...
    origin: str  # which detect-secrets the rules were read from

    def to_json(self, fingerprint: str = "") -> str:
        import json

        data = {
            "fingerprint": fingerprint,
            "rules": [rule._asdict() for rule in self.rules],
            "keywords": self.keywords,
            "key_headers": self.key_headers,
            "origin": self.origin,
        }
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str, fingerprint: str = "") -> RuleSet:
        """The rule set written by ``to_json``; ValueError if it was written for other
        files than ``fingerprint`` says, or is not a rule set."""
        import json

        data = json.loads(text)
        if data.get("fingerprint", "") != fingerprint:
            raise ValueError("the cached rules were read from other files")
        return cls(
            rules=tuple(Rule(**rule) for rule in data["rules"]),
            keywords=tuple(data["keywords"]),
            key_headers=tuple(data["key_headers"]),
            origin=data["origin"],
        )


def re2_candidate(pattern: str, ignore_case: bool) -> str:
    r"""``pattern`` as RE2 syntax that matches wherever it does in a line: lookarounds
    removed, each back-reference replaced by a copy of the group it refers to, ``\s``
    widened to Python's, and repetitions over RE2's limit of 1000 left open.

    The exact rules run on one line at a time, so the candidate never matches a line end
    (not in ``\s``, nor in a negated class): a hit stays within the line it is on."""
    candidate = re.sub(_LOOKAROUND, "", pattern)
    candidate = _rewrite(candidate, _groups(candidate))
    candidate = re.sub(_LONG_REPEAT, lambda m: "{" + m.group(1) + ",}", candidate)
    return f"(?i:{candidate})" if ignore_case else f"(?:{candidate})"


def _pieces(pattern: str) -> list[tuple[str, str]]:
    """``pattern`` cut into pieces, each with where it stands: "" outside a character
    class, "[" inside one, "^" inside a negated one. An escape is one piece, and so is a
    class's opening (``[``, ``[^``, with a ``]`` right after it, which is literal)."""
    pieces: list[tuple[str, str]] = []
    i, klass = 0, ""
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            pieces.append((pattern[i : i + 2], klass))
            i += 2
            continue
        if c == "[" and not klass:
            klass = "^" if pattern[i + 1 : i + 2] == "^" else "["
            step = 2 if klass == "^" else 1
            step += pattern[i + step : i + step + 1] == "]"
            pieces.append((pattern[i : i + step], ""))
            i += step
            continue
        if c == "]" and klass:
            pieces.append((c, klass))
            klass = ""
            i += 1
            continue
        pieces.append((c, klass))
        i += 1
    return pieces


def _groups(pattern: str) -> dict[int, str]:
    """The text of each numbered capture group of ``pattern``."""
    groups: dict[int, str] = {}
    stack: list[tuple[int, int]] = []  # (group number or 0, where its text starts)
    number, at = 0, 0
    for piece, klass in _pieces(pattern):
        if piece == "(" and not klass:
            rest = pattern[at + 1 :]
            if not rest.startswith("?"):
                number += 1
                stack.append((number, at + 1))
            elif rest.startswith("?P<"):
                number += 1
                stack.append((number, pattern.index(">", at) + 1))
            else:
                stack.append((0, at))
        elif piece == ")" and not klass and stack:
            group, start = stack.pop()
            if group:
                groups[group] = pattern[start:at]
        at += len(piece)
    return groups


def _rewrite(pattern: str, groups: dict[int, str]) -> str:
    r"""Back-references replaced by their group's text; ``\s`` as Python means it (RE2's
    lacks \v and \x1c-\x1f), except inside a negated class, where the narrower one
    excludes less and so still matches more; a negated class excludes "\n" too."""
    out: list[str] = []
    for piece, klass in _pieces(pattern):
        if piece.startswith("[^") and not klass:
            out.append(r"[^\n\]" if piece == "[^]" else r"[^\n")
        elif piece == r"\s" and klass != "^":
            out.append(_SPACE if klass else f"[{_SPACE}]")
        elif not klass and len(piece) == 2 and piece[0] == "\\" and piece[1] in "123456789":
            out.append(f"(?:{_rewrite(groups[int(piece[1])], {})})")
        else:
            out.append(piece)
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
    # Its default for text of no known type: the value must be quoted.
    for compiled, group_number in keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP.items():
        ignore_case = bool(compiled.flags & re.IGNORECASE)
        rules.append(
            Rule(
                kind="keyword",
                pattern=compiled.pattern,
                ignore_case=ignore_case,
                group=group_number,
                candidate=re2_candidate(compiled.pattern, ignore_case),
                check="keyword",
                source="detect-secrets KeywordDetector",
            )
        )
    headers = tuple(
        p.pattern for p in PrivateKeyDetector.denylist if p.pattern.startswith("BEGIN ")
    )
    return RuleSet(
        rules=tuple(rules),
        keywords=tuple(keyword.DENYLIST),
        key_headers=headers + ADDED_KEY_HEADERS,
        origin=f"detect-secrets {version.VERSION}",
    )


def _fingerprint() -> str | None:
    """What the rules are read from (each file's path, size and time), found without
    importing it; None when detect-secrets is not installed or cannot be read."""
    import importlib.util

    spec = importlib.util.find_spec("detect_secrets")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = next(iter(spec.submodule_search_locations))
    plugins = os.path.join(root, "plugins")
    try:
        names = sorted(n for n in os.listdir(plugins) if n.endswith(".py"))
    except OSError:
        return None
    sources = [__file__, os.path.join(root, "__version__.py")]
    sources += [os.path.join(plugins, name) for name in names]
    parts = [_READER_VERSION]
    for path in sources:
        try:
            info = os.stat(path)
        except OSError:
            return None
        parts.append(f"{path}\0{info.st_size}\0{info.st_mtime_ns}")
    return "\n".join(parts)


def _cache_dir() -> str:
    configured = os.environ.get(_CACHE_ENV)
    if configured:
        return os.path.join(os.path.expanduser(configured), "redact")
    import platformdirs  # deferred: most commands never need it

    return os.path.join(platformdirs.user_cache_dir("agentout"), "redact")


_LOADED: dict[str, RuleSet] = {}  # by cache file: read once per process


def load_rules(cache: bool = True) -> RuleSet:
    """The rule set: from the cache when it was read from these very files, else read
    from detect-secrets (and cached for the next process; a cache that cannot be written
    is only slower). Read once per process."""
    fingerprint = _fingerprint() if cache else None
    if fingerprint is None:
        return read_detect_secrets()
    path = _cache_path(fingerprint)
    rules = _LOADED.get(path) or _cached(path, fingerprint)
    if rules is None:
        rules = read_detect_secrets()
        with contextlib.suppress(OSError):
            _write(path, rules.to_json(fingerprint))
    _LOADED[path] = rules
    return rules


def _cache_path(fingerprint: str) -> str:
    import zlib  # a name for the file; the fingerprint inside it is what is checked

    name = f"rules-{zlib.crc32(fingerprint.encode('utf-8', 'surrogateescape')):08x}.json"
    return os.path.join(_cache_dir(), name)


def _cached(path: str, fingerprint: str) -> RuleSet | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return RuleSet.from_json(handle.read(), fingerprint)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _write(path: str, text: str) -> None:
    from pathlib import Path

    from agentout.spill import SpillError, private_dir

    try:
        private_dir(Path(path).parent, "the redaction rules cache")
    except SpillError as exc:  # an unsafe directory is not used
        raise OSError(str(exc)) from exc
    temp = f"{path}.{os.getpid()}.partial"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
