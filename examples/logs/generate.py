"""Record real build and test logs into examples/logs/, by running the real tools offline.

    python3 examples/logs/generate.py

Each log is the merged stdout+stderr of a real run in a scratch project (made in a
private temporary directory, then its path replaced by ``/home/dev/PROJECT`` so the
logs do not depend on where they were made):

- pip-install-failure.log: ``pip install -v -r requirements.txt`` of a local package
  with a C extension, failing at its metadata step (setuptools without ``wheel``);
- pytest-failure.log: ``pytest -v`` over 240 tests, 4 of them failing;
- gcc-build-failure.log: ``make -k`` of 40 C files, 2 with compiler errors, some warnings;
- cargo-test-failure.log: ``cargo test`` of a crate with 60 tests, 3 failing;
- npm-test-failure.log: ``npm test`` running ``node --test`` with 2 failing tests.

Timings in the logs differ from run to run; the benchmark reads the committed files, so
regenerate only on purpose. Beside each log, ``NAME.errors`` lists the numbers of its
error lines (one per line), picked by reading the log, not by agentout's classifier:
the benchmark's ground truth.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

OUT = Path(__file__).parent
ENV = {**os.environ, "NO_COLOR": "1", "CARGO_TERM_COLOR": "never", "PIP_NO_INDEX": "1"}


def _run(argv: list[str], cwd: Path, name: str) -> None:
    done = subprocess.run(argv, cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    text = done.stdout.decode("utf-8", "replace").replace(str(cwd), "/home/dev/PROJECT")
    (OUT / name).write_text(text, encoding="utf-8")
    print(f"{name}: {len(text.splitlines())} lines, exit {done.returncode}")


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def pip_install(root: Path) -> None:
    _write(
        root,
        {
            "requirements.txt": """
                ./fastparse
            """,
            "fastparse/setup.py": """
                from setuptools import Extension, setup
                setup(
                    name="fastparse",
                    version="0.3.1",
                    ext_modules=[Extension("fastparse._speedups", ["src/speedups.c"])],
                )
            """,
            "fastparse/src/speedups.c": """
                #include <Python.h>
                #include "missing_vendor_header.h"

                static PyObject *parse(PyObject *self, PyObject *args) {
                    return PyLong_FromLong(vendor_parse(args));
                }
            """,
        },
    )
    python = shutil.which("python3") or sys.executable  # one with setuptools
    argv = [python, "-m", "pip", "install", "-v", "--no-build-isolation", "-r", "requirements.txt"]
    _run(argv, root, "pip-install-failure.log")


def pytest_run(root: Path) -> None:
    _write(
        root,
        {
            "test_parser.py": """
                import json
                import pytest

                @pytest.mark.parametrize("n", range(120))
                def test_roundtrip(n):
                    assert json.loads(json.dumps({"n": n})) == {"n": n}

                @pytest.mark.parametrize("n", range(116))
                def test_sizes(n):
                    assert len(str(n)) <= 3

                def test_unicode_key():
                    assert json.loads('{"é": 1}') == {"e": 1}

                def test_nested_depth():
                    data = {"a": {"b": {"c": [1, 2, 3]}}}
                    assert data["a"]["b"]["c"][3] == 3
            """,
            "test_config.py": """
                import configparser

                def load(text):
                    parser = configparser.ConfigParser()
                    parser.read_string(text)
                    return parser

                def test_missing_section():
                    assert load("[core]\\nname = x\\n")["server"]["port"] == "80"

                def test_port_is_int():
                    port = load("[server]\\nport = eighty\\n")["server"].getint("port")
                    assert port == 80
            """,
        },
    )
    argv = [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider"]
    _run(argv, root, "pytest-failure.log")


def gcc_make(root: Path) -> None:
    files = {
        "Makefile": "CFLAGS = -Wall -Wextra -O2\n"
        "SRCS = $(wildcard src/*.c)\n"
        "OBJS = $(SRCS:.c=.o)\n"
        "app: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n"
        "%.o: %.c\n\t$(CC) $(CFLAGS) -c $< -o $@\n"
    }
    for i in range(40):
        body = f"int unit_{i:02d}(int x) {{ return x * {i + 1}; }}\n"
        if i == 7:
            body = f"int unit_{i:02d}(int x) {{ int unused = 3; return x; }}\n"
        if i == 13:
            body = (
                "#include <stdio.h>\n"
                "struct point { int x; int y; };\n"
                "int unit_13(int x) {\n"
                "    struct point p = { 1, 2 };\n"
                '    printf("%d\\n", p.z);\n'
                "    return x\n"
                "}\n"
            )
        if i == 29:
            body = (
                "#include <string.h>\n"
                "int unit_29(const char *s) {\n"
                "    char buf[8];\n"
                "    strcpy(buf, s);\n"
                "    return undeclared_length(buf);\n"
                "}\n"
            )
        if i == 33:
            body = "int unit_33(unsigned x) { int y = -1; return x < y; }\n"
        files[f"src/unit_{i:02d}.c"] = body
    _write(root, files)
    _run(["make", "-k"], root, "gcc-build-failure.log")


def cargo_test(root: Path) -> None:
    tests = "\n".join(
        f"    #[test]\n    fn checksum_{i:02d}() {{ assert_eq!(super::checksum(&[{i}u8]), {i}); }}"
        for i in range(57)
    )
    _write(
        root,
        {
            "Cargo.toml": """
                [package]
                name = "ledger"
                version = "0.1.0"
                edition = "2021"
            """,
            "src/lib.rs": f"""
pub fn checksum(data: &[u8]) -> u32 {{
    data.iter().map(|&b| b as u32).sum()
}}

pub fn parse_amount(text: &str) -> i64 {{
    let unused_scale = 100;
    text.trim().parse::<i64>().unwrap()
}}

#[cfg(test)]
mod tests {{
{tests}
    #[test]
    fn parses_cents() {{ assert_eq!(super::parse_amount("12.50"), 1250); }}
    #[test]
    fn rejects_empty() {{ assert_eq!(super::parse_amount(""), 0); }}
    #[test]
    fn sums_large() {{ assert_eq!(super::checksum(&[255; 4]), 1024); }}
}}
""",
        },
    )
    _run(["cargo", "test", "--offline"], root, "cargo-test-failure.log")


def npm_test(root: Path) -> None:
    _write(
        root,
        {
            "package.json": """
                {"name": "cart", "version": "1.0.0", "scripts": {"test": "node --test"}}
            """,
            "test/cart.test.js": """
                const test = require('node:test');
                const assert = require('node:assert');
                for (let i = 0; i < 30; i++) {
                  test(`adds item ${i}`, () => { assert.strictEqual(i + 1 - 1, i); });
                }
                test('applies discount', () => {
                  assert.strictEqual(Math.round(100 * 0.85), 80);
                });
                test('rejects negative quantity', () => {
                  const cart = { add(q) { return q; } };
                  assert.throws(() => cart.add(-1), /quantity/);
                });
            """,
        },
    )
    _run(["npm", "test"], root, "npm-test-failure.log")


def main() -> None:
    for make in (pip_install, pytest_run, gcc_make, cargo_test, npm_test):
        root = Path(tempfile.mkdtemp(prefix="agentout-logs-"))
        try:
            make(root)
        finally:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
