"""The JSONL log bench/bench_records.py measures, N records of it, for the docs' examples.

python3 examples/docs/write_log.py PATH N
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from bench_records import write_log

write_log(Path(sys.argv[1]), int(sys.argv[2]))
