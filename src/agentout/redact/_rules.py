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

import os
import re
from typing import Any

from agentout.frozen import Frozen

__all__ = [
    "ADDED",
    "ADDED_CUT",
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
# A token a tool printed cut in the middle (pytest's ``'ghp_Ab3dE5fG7h...9vW1xY3z5A'``):
# its format's known head, an ellipsis, its tail. What is left still gives half of it away.
_CUT = r"(?:\.\.\.|…)[A-Za-z0-9_\-]{4,}"
ADDED_CUT: tuple[tuple[str, str], ...] = (
    ("github-token", r"(?<![A-Za-z0-9])(?:gh[pousr]_|github_pat_)[A-Za-z0-9_]{4,}" + _CUT),
    ("gitlab-token", r"(?<![A-Za-z0-9])glpat-[A-Za-z0-9_\-]{4,}" + _CUT),
    ("aws-key", r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{4,}" + _CUT),
    ("anthropic-key", r"(?<![A-Za-z0-9_\-])sk-ant-[A-Za-z0-9_\-]{4,}" + _CUT),
    ("openai-key", r"(?<![A-Za-z0-9_\-])sk-(?!ant-)[A-Za-z0-9_\-]{4,}" + _CUT),
    ("stripe-key", r"(?<![A-Za-z0-9])[rs]k_(?:live|test)_[A-Za-z0-9]{4,}" + _CUT),
    ("slack-token", r"(?<![A-Za-z0-9])xox[abposr]-[A-Za-z0-9\-]{4,}" + _CUT),
    ("google-api-key", r"(?<![A-Za-z0-9])AIza[A-Za-z0-9_\-]{4,}" + _CUT),
    ("npm-token", r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{4,}" + _CUT),
    ("jwt", r"(?<![A-Za-z0-9_\-])eyJ[A-Za-z0-9_\-]{4,}(?:\.[A-Za-z0-9_\-]*)?" + _CUT),
)
# Private key blocks detect-secrets' header list lacks.
ADDED_KEY_HEADERS = ("BEGIN ENCRYPTED PRIVATE KEY",)
# Bump when the reading below changes, so caches written by older code are not used.
_READER_VERSION = "3"
_CACHE_ENV = "AGENTOUT_CACHE_DIR"
_LOOKAROUND = r"\(\?<?[=!](?:[^()\\]|\\.)*\)"
_REPEAT = r"(?<!\\)\{(\d+)(,(\d*))?\}"
# A repetition of more than this many is only asked for this many (and any more): RE2
# compiles a counted repetition as that many copies, and a candidate need not count.
_COUNT = 16
# What Python's \s matches in a line (RE2's \s is narrower); never "\n", as below.
_SPACE = r"\t\x0b-\r \x1c-\x1f"


class Rule(Frozen):
    """One kind of secret: its exact expression and the RE2 candidate that finds it (a
    ``Frozen``, not a dataclass: every process that redacts imports this)."""

    FIELDS = ("kind", "pattern", "ignore_case", "group", "candidate", "extend", "check", "source")

    kind: str
    pattern: str  # Python ``re`` syntax, compiled as bytes
    ignore_case: bool
    group: int  # 0: the whole match is the secret; N: group N; -1: the last non-empty group
    candidate: str  # RE2 syntax; matches at least wherever ``pattern`` does
    extend: str  # a character class the secret is extended over, to its end
    check: str  # "jwt": the match must decode as a JWT; "keyword": a keyword's value
    source: str

    def __init__(
        self,
        kind: str,
        pattern: str,
        ignore_case: bool,
        group: int,
        candidate: str,
        extend: str = "",
        check: str = "",
        source: str = "agentout",
    ) -> None:
        self._set(
            kind=kind, pattern=pattern, ignore_case=ignore_case, group=group,
            candidate=candidate, extend=extend, check=check, source=source,
        )  # fmt: skip

    def astuple(self) -> tuple[str, str, bool, int, str, str, str, str]:
        return (
            self.kind,
            self.pattern,
            self.ignore_case,
            self.group,
            self.candidate,
            self.extend,
            self.check,
            self.source,
        )


class RuleSet(Frozen):
    """The rules, and what the context rules need from detect-secrets."""

    rules: tuple[Rule, ...]
    keywords: tuple[str, ...]  # detect-secrets' keyword denylist (regex fragments)
    key_headers: tuple[str, ...]  # "BEGIN RSA PRIVATE KEY", ...
    origin: str  # which detect-secrets the rules were read from

    def __init__(
        self,
        rules: tuple[Rule, ...],
        keywords: tuple[str, ...],
        key_headers: tuple[str, ...],
        origin: str,
    ) -> None:
        self._set(rules=rules, keywords=keywords, key_headers=key_headers, origin=origin)

    def __repr__(self) -> str:
        return f"RuleSet({self.origin!r}, {len(self.rules)} rules)"

    def to_json(self, fingerprint: str = "") -> str:
        import json

        data = {
            "fingerprint": fingerprint,
            "rules": [dict(zip(Rule.FIELDS, rule.astuple(), strict=True)) for rule in self.rules],
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
    widened to Python's, and long repetitions asked for at least 16 (``{36}`` becomes
    ``{16,}``), which also keeps them under RE2's limit of 1000.

    The exact rules run on one line at a time, so the candidate never matches a line end
    (not in ``\s``, nor in a negated class): a hit stays within the line it is on."""
    candidate = re.sub(_LOOKAROUND, "", pattern)
    candidate = _rewrite(candidate, _groups(candidate))
    candidate = re.sub(_REPEAT, _fewer, candidate)
    return f"(?i:{candidate})" if ignore_case else f"(?:{candidate})"


def _fewer(repeat: re.Match[str]) -> str:
    """``{n}``, ``{n,}``, ``{n,m}`` counting no more than ``_COUNT``, and matching more."""
    least, most = int(repeat.group(1)), repeat.group(3)
    if least > _COUNT:
        return f"{{{_COUNT},}}"
    if repeat.group(2) and most and int(most) > _COUNT:
        return f"{{{least},}}"
    return repeat.group(0)


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
    for kind, pattern in ADDED_CUT:
        cut = _rule(kind, re.compile(pattern), False, "agentout (printed cut)")
        rules.append(cut.replace(check=""))  # a cut JSON Web Token decodes no more
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


_DIGEST: list[str | None] = []  # found once per process


def _source_digest() -> str | None:
    """What says which detect-secrets the rules are read from: its version file, and the
    name and size of each plugin source. Found without importing it, once per process;
    None when it is not installed as files."""
    if _DIGEST:
        return _DIGEST[0]
    import importlib.machinery

    digest = None
    spec = importlib.machinery.PathFinder.find_spec("detect_secrets")
    if spec is None:  # installed some other way than on sys.path
        import importlib.util

        spec = importlib.util.find_spec("detect_secrets")
    if spec is not None and spec.submodule_search_locations:
        root = next(iter(spec.submodule_search_locations))
        try:
            with open(os.path.join(root, "__version__.py"), encoding="utf-8") as handle:
                version = " ".join(handle.read().split())
            sizes = sorted(
                f"{entry.name}:{entry.stat().st_size}"
                for entry in os.scandir(os.path.join(root, "plugins"))
                if entry.name.endswith(".py")
            )
            digest = f"{version} | {' '.join(sizes)}"
        except (OSError, ValueError):
            pass
    _DIGEST.append(digest)
    return digest


def _cache_dir() -> str:
    configured = os.environ.get(_CACHE_ENV)
    if configured:
        return os.path.join(os.path.expanduser(configured), "redact")
    from agentout.dirs import user_dir

    return os.path.join(user_dir("cache"), "redact")


_LOADED: dict[str, RuleSet] = {}  # by digest: read once per process


def load_rules(cache: bool = True) -> RuleSet:
    """The rule set, read from detect-secrets once and kept:

    - those agentout ships (``_shipped``), when the installed detect-secrets is the one
      they were read from: nothing else to read;
    - else those of agentout's cache directory, read from this detect-secrets by this
      reader in an earlier process;
    - else read from detect-secrets now (a slow import), and cached for the next process
      (a cache that cannot be written is only slower).

    Read once per process; ``cache=False`` reads detect-secrets whatever is kept."""
    digest = _source_digest() if cache else None
    if digest is None:
        return read_detect_secrets()
    rules = _LOADED.get(digest) or _shipped(digest)
    if rules is None:
        import contextlib
        import zlib

        stamp = f"{digest} | {_reader_stamp()}"
        name = f"rules-{zlib.crc32(stamp.encode('utf-8', 'surrogateescape')):08x}.json"
        path = os.path.join(_cache_dir(), name)
        rules = _cached(path, stamp)
        if rules is None:
            rules = read_detect_secrets()
            with contextlib.suppress(OSError):
                _write(path, rules.to_json(stamp))
    _LOADED[digest] = rules
    return rules


def _reader_stamp() -> str:
    """Which reader wrote a cache: its version, and this file's size and time."""
    info = os.stat(__file__)
    return f"reader {_READER_VERSION} {info.st_size} {info.st_mtime_ns}"


def _shipped(digest: str) -> RuleSet | None:
    from agentout.redact import _shipped as shipped

    if digest != shipped.DIGEST:
        return None
    return RuleSet(
        rules=tuple(Rule(*rule) for rule in shipped.RULES),
        keywords=shipped.KEYWORDS,
        key_headers=shipped.KEY_HEADERS,
        origin=shipped.ORIGIN,
    )


def _cached(path: str, digest: str) -> RuleSet | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return RuleSet.from_json(handle.read(), digest)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def write_shipped(path: str) -> None:
    """Write the rules read from the installed detect-secrets as the module agentout
    ships (``python -m agentout.redact._rules``, after upgrading detect-secrets or
    changing this reader; a test says when it is due)."""
    import json
    import subprocess
    import sys

    digest = _source_digest()
    if digest is None:
        raise RuntimeError("detect-secrets is not installed as files")
    rules = read_detect_secrets()

    def text(value: str) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = [
        f'"""The rules agentout read from {rules.origin}: written by',
        "``python -m agentout.redact._rules`` (do not edit). ``load_rules`` uses them when the",
        "installed detect-secrets and agentout's reader are the very files they were read from",
        "(``DIGEST``), so that a process that redacts neither imports detect-secrets nor",
        'reads a cache."""',
        "",
        "# ruff: noqa: E501",
        "",
        f"DIGEST = {text(digest)}",
        f"ORIGIN = {text(rules.origin)}",
        "KEYWORDS: tuple[str, ...] = (",
        *(f"    {text(word)}," for word in rules.keywords),
        ")",
        "KEY_HEADERS: tuple[str, ...] = (",
        *(f"    {text(header)}," for header in rules.key_headers),
        ")",
        "RULES: tuple[tuple[str, str, bool, int, str, str, str, str], ...] = (",
    ]
    for rule in rules.rules:
        lines.append("    (")
        lines += [f"        {text(v) if isinstance(v, str) else repr(v)}," for v in rule.astuple()]
        lines.append("    ),")
    lines.append(")")
    with open(path, "w", encoding="utf-8") as out:
        out.write("\n".join(lines) + "\n")
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", path], check=False)


def _write(path: str, text: str) -> None:
    from pathlib import Path

    from agentout.dirs import private_dir
    from agentout.errors import SpillError

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
        import contextlib

        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


if __name__ == "__main__":
    write_shipped(os.path.join(os.path.dirname(os.path.abspath(__file__)), "_shipped.py"))
