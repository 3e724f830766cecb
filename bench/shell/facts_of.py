"""What an agent needs from each command's output, as rules that pick facts from raw text.

Each rule is a label and a regular expression (``re.MULTILINE``) whose groups are the
values of one fact (see agentout.reducers.facts); an extractor applies its rules in order and keeps
each fact once. Rules read the raw output as ``agentout.reducers.facts`` reads it (no ANSI colour,
``\\n`` line ends), so a fact is always kept by the raw output it came from.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from agentout.reducers.facts import Fact, extract, normalise

Extractor = Callable[[str], list[Fact]]
Rule = tuple[str, str]

PATTERN = "InputError"  # what the search cases look for in this project's sources


def grab(*rules: Rule | Extractor) -> Extractor:
    """An extractor applying ``rules`` (label/pattern pairs or other extractors) in order."""

    def facts(raw: str) -> list[Fact]:
        found: dict[Fact, None] = {}
        text = normalise(raw)
        for rule in rules:
            picked = rule(text) if callable(rule) else extract(rule[1], text, rule[0])
            for fact in picked:
                found.setdefault(fact)
        return list(found)

    return facts


# -- git ----------------------------------------------------------------------------------

COMMIT = ("commit", r"^commit ([0-9a-f]{40})")
AUTHOR = ("author", r"^Author: (.+?) <")
SUBJECT = ("subject", r"^Date: .*\n\n {4}(\S.*?)\s*$")
STAT = ("stat", r"^ (\S.*?)\s+\|\s+(\d+|Bin)\b")
DIFF_FILE = ("file", r"^diff --git a/(\S+) b/")
HUNK = ("hunk", r"^(@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@)")
CHANGED = ("changed", r"^(?!\+\+\+ |--- )([+-].*?\S)\s*$")
ONELINE = ("commit", r"^[*|\\/ ]*([0-9a-f]{7,12}) (\S.*?)\s*$")

GIT_STATUS = grab(
    ("branch", r"^On branch (\S+)"),
    ("path", r"^\t(?:[a-z ]+:\s+)?(\S.*?)\s*$"),
)
GIT_STATUS_SHORT = grab(("path", r"^[ MADRCU?!]{2} (\S.*?)\s*$"))
GIT_LOG = grab(COMMIT, AUTHOR, SUBJECT)
GIT_LOG_STAT = grab(COMMIT, AUTHOR, SUBJECT, STAT)
GIT_LOG_ONELINE = grab(ONELINE)
GIT_DIFF = grab(DIFF_FILE, HUNK, CHANGED)
GIT_DIFF_STAT = grab(STAT)
GIT_SHOW = grab(COMMIT, AUTHOR, SUBJECT, DIFF_FILE, HUNK, CHANGED)
GIT_BRANCH = grab(
    ("current", r"^(\* \S+)\s*$"),
    ("branch", r"^  (?:remotes/[\w.-]+/)?(?!HEAD )(\S+)\s*$"),
)

# -- files --------------------------------------------------------------------------------

LS = grab(("name", r"^(\S.*?)\s*$"))
LS_LONG = grab(
    (
        "entry",
        r"^[-dlcbps][-rwxsStT]{9}\S*\s+\d+\s+\S+\s+\S+\s+(\d+)\s+\w{3}\s+\d+\s+"
        r"(?:\d\d:\d\d|\d{4})\s+(?!\.\.?$)(.+?)\s*$",
    )
)
LS_RECURSIVE = grab(("directory", r"^(\S.*):$"), ("name", r"^(?!.*:$)(\S.*?)\s*$"))
# A path found: its directory (without ./) and its name, which a listing grouped by
# directory keeps as well as one path a line.
FIND = grab(("path", r"^(?:\./)?(?:(.+)/)?([^/\n]+?)\s*$"))
TREE = grab(("name", r"(?:├──|└──) (.+?)\s*$"))

# -- search -------------------------------------------------------------------------------

MATCH = ("match", rf"^([^:\n]+):(\d+):.*?({PATTERN})")
SEARCH = grab(MATCH)
SEARCH_NO_LINES = grab(("match", rf"^([^:\n]+):.*?({PATTERN})"))
SEARCH_COUNTS = grab(("count", r"^(.+):([1-9]\d*)$"))
SEARCH_FILES = grab(("path", r"^(\S.*?)\s*$"))
RG_JSON = grab(
    (
        "match",
        r'"type":"match","data":\{"path":\{"text":"([^"]+)"\},"lines":\{"text":".*?"\},'
        r'"line_number":(\d+)',
    )
)

# -- tests --------------------------------------------------------------------------------

FRAME = ("frame", r'^\s*File "(.+?)", line (\d+)')
EXCEPTION = ("exception", r"^(\w+(?:\.\w+)*(?:Error|Exception|Warning)): (.+?)\s*$")
# A failed assert statement is the statement (``assert 2 == 3``), which says that an
# AssertionError was raised: pytest itself leaves out "AssertionError: " before it (unless
# the message holds a quote), so the fact is the statement, and the location of a failed
# assertion is its file and line.
PYTEST_ERRORS = (
    ("location", r"^([\w/.-]+\.py):(\d+): AssertionError$"),
    ("location", r"^([\w/.-]+\.py):(\d+): (?!AssertionError$)(\w+)$"),
    ("error", r"^E +AssertionError: (assert .*?)\s*$"),
    ("error", r"^E +(?!AssertionError: assert )(\w+(?:\.\w+)*(?:Error|Exception|Exit)\b.*?)\s*$"),
)
PYTEST = grab(
    ("failed", r"^(?:FAILED|ERROR) ([^:\s]+)::(\S+)"),
    *PYTEST_ERRORS,
    ("summary", r"^=+ (\d+) failed(?:, (\d+) passed)?"),
)
PYTEST_COLLECT = grab(("test", r"^([^:\s]+)::(\S.*?)\s*$"))  # every id, file and name
PYTEST_QUIET = grab(
    ("failed", r"^(?:FAILED|ERROR) ([^:\s]+)::(\S+)"),
    *PYTEST_ERRORS,
    ("summary", r"^(\d+) failed(?:, (\d+) passed)?"),
)
RUST_ERROR = ("error", r"^(error(?:\[E\d+\])?): (.+)\n\s*--> (\S+?):(\d+):(\d+)$")
RUST_WARNING = ("warning", r"^warning: (.+)\n\s*--> (\S+?):(\d+):(\d+)$")
CARGO_TEST = grab(
    ("failed", r"^test (\S+) \.\.\. FAILED$"),
    ("panic", r"^thread '([^']+)'(?: \(\d+\))? panicked at (\S+?):(\d+):(\d+):$"),
    ("message", r"panicked at \S+:\n(.+?)\s*$"),
    ("values", r"^\s*left: (.+?)\s*\n\s*right: (.+?)\s*$"),
    ("summary", r"^test result: FAILED\. (\d+) passed; (\d+) failed"),
    RUST_WARNING,
)
NODE_TEST = grab(
    ("failed", r"^not ok \d+ - (.+?)\s*$"),
    ("location", r"^\s+location: '(.+?):(\d+):(\d+)'$"),
    ("summary", r"^# fail (\d+)$"),
)

# -- linters and type checkers ------------------------------------------------------------

RUFF = grab(("diagnostic", r"^([A-Z]+\d+|invalid-syntax)\b.*\n\s*--> (\S+?):(\d+):(\d+)$"))
RUFF_CONCISE = grab(("diagnostic", r"^(\S+?):(\d+):(\d+): ([A-Z]+\d+|invalid-syntax)\b"))
MYPY = grab(("error", r"^(\S+?):(\d+): error: .*\[([\w-]+)\]\s*$"))
MYPY_PRETTY = grab(("error", r"^(\S+?):(\d+): error: "))  # the code is on a later line
FLAKE8 = grab(("diagnostic", r"^(\S+?):(\d+):(\d+): ([A-Z]+\d+) "))
PYLINT = grab(("diagnostic", r"^(\S+?):(\d+):(\d+): ([A-Z]\d{4}): "))
TSC = grab(("error", r"^(\S+?)\((\d+),(\d+)\): error (TS\d+):"))
TSC_PRETTY = grab(("error", r"^(\S+?):(\d+):(\d+) - error (TS\d+):"))
_ESLINT_LINE = re.compile(r"^\s+(\d+):(\d+)\s+(?:error|warning)\s+.*?\s{2,}([\w/@-]+)\s*$")


def _eslint(text: str) -> list[Fact]:
    """stylish: a file's path on a line of its own, then one indented line a problem."""
    facts, path = [], ""
    for line in text.split("\n"):
        if line.startswith("/"):
            path = line.strip()
        elif (problem := _ESLINT_LINE.match(line)) and path:
            facts.append(Fact("diagnostic", (path, *problem.groups())))
    return facts


ESLINT = grab(_eslint)

# -- compilers and builds -----------------------------------------------------------------

GCC_ERROR = ("error", r"^\s*(\S+?):(\d+):(\d+): (?:fatal )?error: (.+?)\s*$")
GCC_WARNING = ("warning", r"^\s*(\S+?):(\d+):(\d+): warning: .*\[(-W[^\]]+)\]\s*$")
JAVAC = (
    ("error", r"^(\S+\.java):(\d+): error: (.+?)\s*$"),
    ("warning", r"^(\S+\.java):(\d+): warning: (\[[\w-]+\])"),
    ("summary", r"^(\d+ errors?)$"),
)
MAKE = ("make", r"^make(?:\[\d+\])?: \*\*\* \[(\S+?):(\d+): (\S+)\] (Error \d+)$")
CARGO_STATUS = ("status", r"^(error: could not compile .+?)\s*$")
GCC = grab(GCC_ERROR, GCC_WARNING)
CARGO_BUILD = grab(RUST_ERROR, RUST_WARNING, CARGO_STATUS)
JAVAC_FACTS = grab(*JAVAC)
MAKE_FACTS = grab(GCC_ERROR, GCC_WARNING, *JAVAC, RUST_ERROR, RUST_WARNING, CARGO_STATUS, MAKE)
PIP = grab(
    GCC_ERROR,
    GCC_WARNING,
    ("pip", r"^\s*(ERROR: .+?)\s*$"),
    ("pip", r"^\s*(error: subprocess-exited-with-error)"),
)
TRACEBACK = grab(FRAME, EXCEPTION, ("syntax", r"^(SyntaxError: .+?)\s*$"))
NPM_RUN = grab(
    ("script", r"^> (\S+@\S+) (\S+)$"), ("error", r"^(\S+?)\((\d+),(\d+)\): error (TS\d+):")
)

# -- logs ---------------------------------------------------------------------------------

BUILD_LOG = grab(GCC_ERROR, ("flag", r"\[(-W[^\]]+)\]"), MAKE)
APP_LOG = grab(
    (
        "error",
        r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) (ERROR|CRITICAL) \[([\w.]+)\] (.+?)\s*$",
    ),
    ("warning", r"^\S+ \S+ WARNING \[[\w.]+\] ([^\d(\n]*[^\d(\s])"),
    FRAME,
    EXCEPTION,
)
JSON_LOG = grab(
    ("error", r'^\{"ts": "([^"]+)", "level": "(error|fatal)", .*"msg": "([^"]+)"'),
)
LOGBACK = grab(
    ("error", r"^(\S+ \S+) \[([\w-]+)\] (ERROR) (\S+) - (.+?)\s*$"),
    ("exception", r'^(Exception in thread "[^"]+" \S+?): (.+?)\s*$'),
    ("frame", r"^\s+at (\S+)\((\w+\.java):(\d+)\)$"),
    ("warning", r"^\S+ \S+ \[[\w-]+\] WARN (\S+) - ([^\d(\n]*[^\d(\s])"),
)

# -- anything else ------------------------------------------------------------------------

NOTHING = grab()
PROGRESS = grab(("line", r"^(WARNING: .+?|Saved .+?)\s*$"))
LEGACY = grab(("line", r"^(ERROR line \d+: invalid byte)"), ("line", r"^(\d+ records skipped)$"))
LAST_NUMBER = grab(("last", r"(\d+)\s*\Z"))
FIRST_LINE = grab(("line", r"\A(\S.*?)\s*$"))
