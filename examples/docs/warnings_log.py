"""5,000 compiler warnings of one shape, for the docs' example of a fold's exact count.

    python3 examples/docs/warnings_log.py warnings.log
"""

from __future__ import annotations

import sys

lines = (
    f"src/m{i % 40}.c:{i + 1}:5: warning: unused variable 'v{i}' [-Wunused-variable]\n"
    for i in range(5000)
)
with open(sys.argv[1], "w", encoding="utf-8") as out:
    out.writelines(lines)
