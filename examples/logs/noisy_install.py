"""A noisy, failing install, for trying `agentout run` on the kinds of noise it folds.

    agentout run -- python3 examples/logs/noisy_install.py

Prints a progress bar redrawn with carriage returns, colour, a line repeated 37 times,
then an error on stderr, and exits 100, as a package manager waiting on a lock does.
"""

import sys
import time

for percent in range(0, 101, 5):
    bar = "█" * (percent // 5) + " " * (20 - percent // 5)
    print(f"\rDownloading model.bin {percent:3d}% |{bar}|", end="", flush=True)
    time.sleep(0.01)
print()
for _ in range(37):
    print("Waiting for cache lock: Could not get lock /var/lib/dpkg/lock-frontend...")
print("\x1b[1;31mE: Could not get lock /var/lib/dpkg/lock-frontend\x1b[0m", file=sys.stderr)
sys.exit(100)
