from agentout.sources.testing.readback import failures_of

for failure in failures_of(open("report.txt").read()):
    print(failure["file"], failure.get("error", ""))
