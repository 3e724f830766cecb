from pathlib import Path

from agentout.sources.testing.readback import failures_of

for failure in failures_of(Path("report.txt").read_text(encoding="utf-8")):
    print(failure["file"], failure.get("error", ""))
