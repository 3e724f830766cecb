"""Files: what an allowed program may not be made to write, nor read outside the roots.

Two rules. Every argument (and the value after an option's ``=``, a short option's
attached value, the path after an ``@``) that names a file or folder existing outside the
roots is refused: ``cat /etc/shadow``, ``diff ../../other/secret a``, ``curl -F f=@/home/
me/.ssh/id_ed25519``, a link in the project that leads out. And each program in
``TABLE`` is refused the options that make it write a file the call names or run a
program (``sort -o``, ``sort -T``, ``sort --compress-program``, ``rg --pre``,
``split --filter``, ``less -o``, ``curl -o``...); a program that writes by its nature
(``cp``, ``tee``, ``touch``, ``tar -x``, ``unzip -d``) writes only under the roots.
docs/mcp.md lists the table.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

from agentout.mcp.escapes._words import Refused, Word, inside, long_named, scan, short_named
from agentout.mcp.guard import Roots

__all__ = ["TABLE", "FileRule", "check_files", "reads_outside"]

_HARMLESS = ("/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr")


class FileRule(NamedTuple):
    """One program's options, as getopt reads them: ``values`` (short options with a
    value) and ``long_values``; ``runs`` and ``writes``, refused; ``places``, options
    whose value is where the program writes (under the roots only); ``operands``:
    ``"read"``, ``"write"`` (each operand is a file written: under the roots only) or
    ``"one"`` (a second operand is a file written: refused)."""

    values: str = ""
    long_values: tuple[str, ...] = ()
    runs: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    operands: str = "read"
    permute: bool = True


# fmt: off
_CURL_WRITES = (
    "-o", "--output", "-O", "--remote-name", "--remote-name-all", "--output-dir", "-D",
    "--dump-header", "-c", "--cookie-jar", "--trace", "--trace-ascii", "--libcurl",
    "--stderr", "--etag-save", "--hsts", "--alt-svc", "-K", "--config", "--create-dirs",
)
_WGET_WRITES = (
    "-O", "--output-document", "-o", "--output-file", "-a", "--append-output", "-P",
    "--directory-prefix", "--save-cookies", "--warc-file", "--rejected-log",
)
_COPY = FileRule("tS", ("target-directory", "suffix"), (), (), ("-t", "--target-directory"),
                 "write")
TABLE: dict[str, FileRule] = {
    "sort": FileRule(
        "kotTS", ("key", "output", "field-separator", "temporary-directory", "buffer-size",
                  "compress-program", "files0-from", "random-source", "batch-size",
                  "parallel"),
        runs=("--compress-program",),
        writes=("-o", "--output", "-T", "--temporary-directory"),
    ),
    "uniq": FileRule("fsw", ("skip-fields", "skip-chars", "check-chars"), operands="one"),
    "sed": FileRule("efl", ("expression", "file", "line-length"),
                    writes=("-i", "--in-place")),
    "awk": FileRule(
        "fvFWi", ("file", "assign", "field-separator", "include", "load", "exec", "source"),
        runs=("-l", "--load", "-E", "--exec", "-D", "--debug"),
        writes=("-o", "--pretty-print", "-p", "--profile", "-d", "--dump-variables"),
        permute=False,
    ),
    "less": FileRule("ohkxyzjbPtT", ("log-file", "LOG-FILE", "lesskey-file", "tag"),
                     runs=("-k", "--lesskey-file", "--lesskey-src", "--lesskey-content"),
                     writes=("-o", "-O", "--log-file", "--LOG-FILE")),
    "man": FileRule("CMPHlLmpRSeTW", ("config-file", "manpath", "pager", "html"),
                    runs=("-C", "--config-file")),
    "tree": FileRule("oLPIHT", ("fromfile", "filelimit", "timefmt", "charset"),
                     writes=("-o",)),
    "file": FileRule("mfFeP", ("magic-file", "files-from", "separator", "exclude"),
                     writes=("-C", "--compile")),
    "date": FileRule("dfr", ("date", "file", "reference", "set"), writes=("-s", "--set")),
    "yq": FileRule("Iops", ("indent", "from-file", "output-format", "input-format"),
                   writes=("-i", "--inplace", "--split-exp", "-s")),
    "curl": FileRule(
        "AbcCdDeEFHKmoPQrtTuUwxXyYz", ("output", "data", "dump-header", "cookie-jar", "trace",
                                   "trace-ascii", "libcurl", "stderr", "etag-save", "hsts",
                                   "alt-svc", "config", "output-dir", "form", "upload-file",
                                   "user", "header", "request", "url", "json", "proxy"),
        writes=_CURL_WRITES,
    ),
    "wget": FileRule(
        "OoaPeDtTwUBiQARlXI", ("output-document", "output-file", "append-output",
                            "directory-prefix", "save-cookies", "warc-file", "rejected-log",
                            "execute", "config", "use-askpass", "input-file"),
        runs=("-e", "--execute", "--use-askpass", "--config"),
        writes=_WGET_WRITES,
    ),
    "rg": FileRule(
        "ABCeEfgjmMtTr", ("pre", "pre-glob", "hostname-bin", "file", "ignore-file", "glob",
                          "type", "regexp", "replace", "max-count", "path-separator"),
        runs=("--pre", "-z", "--search-zip", "--hostname-bin"),
    ),
    "fd": FileRule("xXeEtdjcS", ("exec", "exec-batch", "extension", "exclude", "type"),
                   runs=("-x", "--exec", "-X", "--exec-batch")),
    "ag": FileRule("ABCGgmp", ("pager", "path-to-ignore"), runs=("--pager",)),
    "ack": FileRule("ABCgm", ("pager", "output"), runs=("--pager",)),
    "zip": FileRule("bntOPxiT", ("unzip-command", "temp-path", "output-file", "password"),
                    runs=("-TT", "--unzip-command"), places=("-b", "--temp-path", "-O",
                    "--output-file"), operands="zip"),
    "unzip": FileRule("dxP", (), places=("-d",)),
    "split": FileRule("abClnt", ("suffix-length", "additional-suffix", "bytes",
                                 "line-bytes", "lines", "number", "separator", "filter"),
                      runs=("--filter",), operands="write"),
    "csplit": FileRule("bfn", ("suffix-format", "prefix", "digits"),
                       places=("-f", "--prefix")),  # its operands are patterns
    "patch": FileRule(
        "BDFgiopVxYzdrD", ("prefix", "ifdef", "fuzz", "input", "output", "strip",
                           "basename-prefix", "suffix", "directory", "reject-file"),
        runs=("-e", "--ed"),
        places=("-o", "--output", "-B", "--prefix", "-Y", "--basename-prefix", "-d",
                "--directory", "-r", "--reject-file"),
        operands="write",
    ),
    "install": FileRule("gmoStT", ("group", "mode", "owner", "suffix", "target-directory",
                                   "strip-program"),
                        runs=("--strip-program",), places=("-t", "--target-directory"),
                        operands="write"),
    "cp": _COPY, "mv": _COPY, "ln": _COPY,
    "tee": FileRule(operands="write"),
    "touch": FileRule("drt", ("date", "reference", "time"), operands="write"),
    "mkdir": FileRule("m", ("mode", "context"), operands="write"),
    "rm": FileRule(operands="write"), "rmdir": FileRule(operands="write"),
    "truncate": FileRule("rs", ("reference", "size"), operands="write"),
    "shred": FileRule("nsu", ("iterations", "size", "random-source"), operands="write"),
    "chmod": FileRule("", ("reference",), operands="write"),
    "chown": FileRule("", ("reference", "from"), operands="write"),
    "chgrp": FileRule("", ("reference",), operands="write"),
    "zstd": FileRule("oDT", ("output-dir-flat", "output-dir-mirror"),
                     places=("-o", "--output-dir-flat", "--output-dir-mirror")),
    "crontab": FileRule("u", (), writes=("-e", "-r", "-i"), operands="none"),
    "pytest": FileRule(
        "cpkmoW", ("basetemp", "junitxml", "junit-xml", "log-file", "resultlog",
                   "report-log", "override-ini", "rootdir", "confcutdir", "config-file"),
        places=("--basetemp", "--junitxml", "--junit-xml", "--log-file", "--resultlog",
                "--report-log", "--debug"),
    ),
}
for _alias, _name in (("gawk", "awk"), ("mawk", "awk"), ("nawk", "awk"), ("gsed", "sed"),
                      ("more", "less"), ("fdfind", "fd"), ("ripgrep", "rg"),
                      ("py.test", "pytest"), ("pzstd", "zstd")):
    TABLE[_alias] = TABLE[_name]
# fmt: on
_PYTEST_INI = ("cache_dir", "log_file", "junit_suite_name", "addopts", "required_plugins")


def check_files(name: str, args: Sequence[str], roots: Roots) -> None:
    """Refuse ``NAME ARGS`` when it would write a file the call names (or outside the
    roots, for a program that writes by nature) or run a program (``TABLE``)."""
    if name == "dd":
        _dd(args, roots)
        return
    if name == "curl" and any("%output{" in arg for arg in args):
        raise Refused("curl -w %output{FILE}: writes a file the call names")
    rule = TABLE.get(name)
    if rule is None:
        return
    whole = [option for option in rule.runs if option[1] != "-" and len(option) > 2]
    given = next((arg for arg in args if arg in whole), None)  # zip's -TT: one option
    if given is not None:
        raise Refused(f"{name} {given}: runs the program it is given")
    words = scan(args, values=rule.values, long_values=rule.long_values, permute=rule.permute)
    found = _named(words, rule.runs)
    if found is not None:
        raise Refused(f"{name} {found.name}: runs the program it is given")
    found = _named(words, rule.writes)
    if found is not None:
        raise Refused(f"{name} {found.name}: writes a file the call names")
    for word in words:
        if word.name and _named([word], rule.places) is not None:
            inside(roots, word.value or ".")  # where it writes
        ini = (word.value or "").split("=", 1)[0].strip()
        if word.name in ("-o", "--override-ini") and name.startswith("py") and ini in _PYTEST_INI:
            raise Refused(f"{name} -o {word.value}: sets where it writes or what it loads")
    operands = [word.value or "" for word in words if not word.name]
    if rule.operands == "one" and len(operands) > 1:
        raise Refused(f"{name} {operands[1]}: writes the output file it is given")
    if rule.operands == "none" and operands:
        raise Refused(f"{name} {operands[0]}: installs the file it is given")
    if rule.operands in ("write", "zip"):
        for operand in operands[:1] if rule.operands == "zip" else operands:
            if operand != "-":
                inside(roots, operand)  # a file it writes: under the roots only


def _named(words: Sequence[Word], options: Sequence[str]) -> Word | None:
    """The first of ``words`` that is one of ``options`` (``-o``, ``--output``: a long one
    in any abbreviation getopt_long takes)."""
    longs = tuple(option[2:] for option in options if option.startswith("--"))
    shorts = "".join(option[1] for option in options if len(option) == 2)
    found = long_named(words, longs) if longs else None
    return found or (short_named(words, shorts) if shorts else None)


def _dd(args: Sequence[str], roots: Roots) -> None:
    for arg in args:
        key, eq, value = arg.partition("=")
        if eq and key == "of":
            inside(roots, value)  # the file dd writes


def reads_outside(args: Sequence[str], roots: Roots) -> None:
    """Refuse an argument that names a file or folder outside the roots that exists: the
    whole word, the value after an option's ``=``, a short option's attached value, the
    path after an ``@`` (``curl -F f=@PATH``). A one-character value (``awk -F/``,
    ``cut -d/``) is a separator, not a path."""
    for arg in args:
        candidates = [arg]
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 3:
            candidates.append(arg[2:])
        if "=" in arg:
            candidates.append(arg.split("=", 1)[1])
        if "@" in arg:
            candidates.append(arg.rsplit("@", 1)[1])
        for candidate in candidates:
            if candidate in ("", "-") or "\x00" in candidate or candidate in _HARMLESS:
                continue
            if candidate is not arg and len(candidate) < 2:
                continue
            path = os.path.join(roots.first, candidate)
            if not os.path.lexists(path):
                continue
            real = os.path.realpath(path)
            if real not in _HARMLESS and not roots.holds(Path(real)):
                raise Refused(f"{arg}: reads {candidate}, outside the allowed roots")
