"""Whether a short text plainly holds no secret, told without building the scanner.

Building the scanner (``_scan.Scanner``: google-re2 loaded, its one pass compiled) costs
more than the rest of ``agentout run -- true``, and the ledger redacts every command line
(``true``, ``git status``) before it writes it. Most command lines are a few short words:
``nothing_to_find`` says so, and the scanner is not built for them.

It is strictly conservative: True only when the scanner's one pass cannot hit, so the
scanner would return the text unchanged (a line the pass does not hit is never read by
the exact rules). It answers False (scan) unless the rules are the ones agentout ships
(``_shipped``, which the reasons below were checked against: tests/redact/test_redact_quick.py)
and all of these hold:

- printable ASCII, tabs and newlines only: no control character, escape or invisible
  character (``_visible.DIRT``), no ``…`` (the cut forms of tokens);
- no ``=``, ``:``, ``@`` or backslash: every assignment, header, URL with a password,
  ``AccountKey=``, npm ``_authToken=`` and ``\\e[`` needs one;
- no ``--``: the secret flags (``--token X``, ``--api-key X``) and key block headers;
- none of the words a context rule or prefix needs, in any case (``key``, ``pass``,
  ``pwd``, ``secret``, ``token``, ``auth``, ``bearer``, ``aws``, ``contras``, ``eyj``
  (a JWT), ``xox`` (Slack));
- no run of ``RUN`` or more token characters (letters, digits, ``_.+~-``): every format
  with a prefix has at least 14 of them in a row (``sk-abcd...wxyz``), most 16 or more;
- no secret value of the environment (``Redactor``'s values) anywhere in it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["RUN", "nothing_to_find"]

RUN = 12  # below the shortest run of token characters any shipped format needs (14)

# Bytes that may appear: printable ASCII, tab and newline, less = : @ and backslash.
_ALLOWED = bytes(sorted({9, 10, *range(0x20, 0x7F)} - set(b"=:@\\")))
_WORDS = (
    b"key", b"pass", b"pwd", b"secret", b"token", b"auth", b"bearer", b"aws", b"contras",
    b"eyj", b"xox",
)  # fmt: skip
_RUN_OF = rb"[A-Za-z0-9_.+~\-]{%d}" % RUN  # compiled on first use (re's cache)
_shipped_in_use: list[bool] = []  # found once per process


def nothing_to_find(data: bytes, values: Iterable[str]) -> bool:
    """True when the scanner surely finds nothing in ``data``; False: scan it."""
    if data.translate(None, _ALLOWED) or b"--" in data:
        return False
    lower = data.lower()
    if any(word in lower for word in _WORDS) or re.search(_RUN_OF, data):
        return False
    if any(value.encode("utf-8", "surrogatepass") in data for value in values):
        return False
    return _rules_are_shipped()


def _rules_are_shipped() -> bool:
    """Whether ``load_rules`` gives the rules agentout ships: another detect-secrets may
    bring rules the reasons in the module docstring were not checked against."""
    if not _shipped_in_use:
        from agentout.redact import _shipped
        from agentout.redact._rules import _source_digest

        _shipped_in_use.append(_source_digest() == _shipped.DIGEST)
    return _shipped_in_use[0]
